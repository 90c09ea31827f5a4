#!/usr/bin/env bash
# Makes the GPU bundle (scripts/gpu-bundle.sh) and adds the GPU integration
# tests: every model of test/Integration/Host and examples/ compiled with
# --target=sm_90a, each `attn-run ... --check` case of those files to run on
# cuda:0, and the benchmark's package. The host models are mostly f32, which
# the scalar GPU kernel runs; each also gets a bf16 variant (f32 tensors of
# rank 4 become bf16, lse stays f32, pinned tiles dropped) compiled twice, with the default
# tensor-core kernels (wgmma where it applies) and with
# --tensor-cores=mma-sync, so that the same cases cover both tensor-core
# kernels (the models that reach every kernel kind also with
# --kernel-schedule=ping-pong). Run here (needs the built attnc and a
# CUDA toolkit, no GPU); then on the GPU machine:
#   bash gpu-bundle/run.sh && bash gpu-bundle/run-integration.sh
# The GPU machine takes 64 MiB per call: where the bundle is larger, its
# largest packages that only cases.txt names move with their cases to
# gpu-bundle-2 (then -3, ... each at most 56 MiB), whose
# run-integration.sh runs just those cases, in a call of its own.
# With ATTNC_BASELINE set to an earlier build (a folder with bin/attnc,
# lib/libattnrt.so and python/attnc), the bundle also holds that build's
# benchmark packages (attention, variants, documents) and binding under
# gpu-bundle/baseline, for bench/attention.py --baseline gpu-bundle/baseline
# --baseline-package gpu-bundle/baseline/bench.attnpkg (variants.py and
# documents.py with bench-variants and bench-documents).
# The bundle records its packages' checksums in gpu-bundle/packages.sha256,
# from which scripts/gpu-changed.sh makes a bundle of what a later change
# touched.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
bundle="$root/gpu-bundle"
attnc="$build/bin/attnc"

bash "$root/scripts/gpu-bundle.sh" "${1:--j2}"
mkdir -p "$bundle/packages"

# Packages compile in the background, as many at a time as the -jN given
# (attnc's ptxas runs on one core); a failure is written down, and
# finish_compiles waits for all and fails if any did.
max_jobs="${1:--j2}"
max_jobs="${max_jobs#-j}"
failures="$bundle/compile-failures.txt"
rm -f "$failures"
running=0
compile_with() {
  local compiler=$1
  shift
  if [ "$running" -ge "$max_jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  { "$compiler" "$@" || echo "$*" >>"$failures"; } &
  running=$((running + 1))
}
compile() { compile_with "$attnc" "$@"; }
finish_compiles() {
  wait
  if [ -s "$failures" ]; then
    echo "gpu-integration: these compiles failed:" >&2
    cat "$failures" >&2
    exit 1
  fi
}
cases="$bundle/cases.txt"
: >"$cases"

variants="$bundle/variants"
mkdir -p "$variants"
for model in "$root"/test/Integration/Host/*.mlir; do
  name="$(basename "$model" .mlir)"
  # bf16, and without pinned tiles so that the GPU's own tensor-core tiles
  # (and the tile skipping of mask regions at those sizes) are tested.
  # (Rank-4 tensors only: lse of a static query length stays f32.)
  sed -E 's/(tensor<[^x>]+x[^x>]+x[^x>]+x[0-9]+)xf32>/\1xbf16>/g; s/, tiles = #attn.tiles<[^>]*>//; s/ \{tiles = #attn.tiles<[^>]*>\}//' \
    "$model" >"$variants/$name-bf16.mlir"
  # name, model, attnc flags
  schedule=
  # The wgmma kernels' option no kernel gets by default on the models that
  # reach every kernel kind (attnc --kernel-schedule).
  case "$name" in gradients | heads | masks | scores)
    schedule="$name-bf16-scheduled:$variants/$name-bf16.mlir:--kernel-schedule=ping-pong" ;;
  esac
  for variant in "$name:$model:" "$name-bf16:$variants/$name-bf16.mlir:" \
    "$name-bf16-mma-sync:$variants/$name-bf16.mlir:--tensor-cores=mma-sync" \
    $schedule; do
    IFS=: read -r vname source flags <<<"$variant"
    # shellcheck disable=SC2086
    compile "$source" --target=sm_90a $flags -o "$bundle/packages/$vname.attnpkg"
    sed -n 's|^// RUN: attn-run %t.attnpkg \([^|]*--check\).*|\1|p' "$model" |
      while read -r args; do echo "$vname.attnpkg $args" >>"$cases"; done
    # Packages a model compiles with extra flags (`// RUN: attnc %s FLAGS
    # -o %t.SUFFIX.attnpkg`, e.g. --deterministic-grad) and their cases,
    # with --repeat where the host test asks for it (not for the scheduled
    # variant: the bundle stays under the 64 MiB a run may carry).
    [ -n "$schedule" ] && [ "$variant" = "$schedule" ] && continue
    # (The loop reads a process substitution, not a pipe, so that its
    # background compiles are this shell's jobs.)
    while read -r suffix extra; do
      # shellcheck disable=SC2086
      compile "$source" --target=sm_90a $flags $extra \
        -o "$bundle/packages/$vname-$suffix.attnpkg"
      sed -n "s|^// RUN: attn-run %t\.$suffix\.attnpkg \([^|]*--check[^|]*\)[|].*|\1|p" "$model" |
        while read -r args; do echo "$vname-$suffix.attnpkg $args" >>"$cases"; done
    done < <(sed -n 's|^// RUN: attnc %s \(.*\)-o %t\.\([a-z0-9-]*\)\.attnpkg.*|\2 \1|p' "$model")
  done
done
# EXAMPLE-TRAIN lines train on a token file of the docs (train-cases.txt).
mkdir -p "$bundle/data"
python3 "$root/scripts/make-tokens.py" "$root/docs" "$root/README.md" \
  -o "$bundle/data/docs.tok" >/dev/null
: >"$bundle/train-cases.txt"
for model in "$root"/examples/*.mlir; do
  name="$(basename "$model" .mlir)"
  compile "$model" --target=sm_90a -o "$bundle/packages/$name.attnpkg"
  sed -n 's|^// EXAMPLE-RUN: \(.*\)|\1 --check|p' "$model" |
    while read -r args; do echo "$name.attnpkg $args" >>"$cases"; done
  sed -n 's|^// EXAMPLE-TRAIN: \(.*\)|\1|p' "$model" |
    while read -r args; do echo "$name.attnpkg $args" >>"$bundle/train-cases.txt"; done
done
# A package for the host and sm_90a: cuda:0 must pick the sm_90a kernels.
compile "$root/test/attnc/multi-target.mlir" --target=host,sm_90a \
  -o "$bundle/packages/multi-target.attnpkg"
sed -n 's|^// RUN: attn-run %t.attnpkg \([^|]*--check\).*|\1|p' "$root/test/attnc/multi-target.mlir" |
  while read -r args; do echo "multi-target.attnpkg $args" >>"$cases"; done
compile "$root/bench/attention.mlir" --target=sm_90a -o "$bundle/packages/bench.attnpkg"
compile "$root/bench/attention_backward.mlir" --target=sm_90a \
  -o "$bundle/packages/bench-backward.attnpkg"
compile "$root/bench/decode.mlir" --target=sm_90a \
  -o "$bundle/packages/bench-decode.attnpkg"
compile "$root/bench/documents.mlir" --target=sm_90a \
  -o "$bundle/packages/bench-documents.attnpkg"
compile "$root/bench/variants.mlir" --target=sm_90a \
  -o "$bundle/packages/bench-variants.attnpkg"
compile "$root/bench/matmul.mlir" --target=sm_90a \
  -o "$bundle/packages/bench-matmul.attnpkg"
compile "$root/bench/norm.mlir" --target=sm_90a \
  -o "$bundle/packages/bench-norm.attnpkg"
compile "$root/bench/loss.mlir" --target=sm_90a \
  -o "$bundle/packages/bench-loss.attnpkg"
compile "$root/bench/block.mlir" --target=sm_90a \
  -o "$bundle/packages/bench-block.attnpkg"
compile "$root/bench/block.mlir" --target=sm_90a --remat=none \
  -o "$bundle/packages/bench-block-none.attnpkg"
compile "$root/bench/block.mlir" --target=sm_90a --remat=selective \
  -o "$bundle/packages/bench-block-selective.attnpkg"
# The same programs with every step after the one before, for the A/B of
# attn-overlap-steps (bench/NOTES.md, "Steps side by side").
compile "$root/bench/block.mlir" --target=sm_90a --remat=none \
  --overlap-steps=false -o "$bundle/packages/bench-block-none-serial.attnpkg"
compile "$root/bench/attention_backward.mlir" --target=sm_90a \
  --overlap-steps=false -o "$bundle/packages/bench-backward-serial.attnpkg"
compile "$root/bench/loss.mlir" --target=sm_90a --overlap-steps=false \
  -o "$bundle/packages/bench-loss-serial.attnpkg"
# The fused loss at other vocabulary chunks: smaller ones keep a chunk of
# logits in L2, larger ones make fewer and wider GEMMs.
for chunk in 4096 16384; do
  compile "$root/bench/loss.mlir" --target=sm_90a --vocab-chunk=$chunk \
    -o "$bundle/packages/bench-loss-chunk$chunk.attnpkg"
done
compile "$root/bench/block.mlir" --target=sm_90a --remat=full \
  -o "$bundle/packages/bench-block-full.attnpkg"
compile "$root/bench/block.mlir" --target=sm_90a --remat=selective \
  --remat-budget=512MiB --symbol B=4 --symbol N=4096 \
  -o "$bundle/packages/bench-block-budget.attnpkg"
# The benchmarks with ping-pong (bench/NOTES.md, "TMA loads and
# ping-pong"), to compare with the default packages above.
compile "$root/bench/attention.mlir" --target=sm_90a \
  --kernel-schedule=ping-pong -o "$bundle/packages/bench-ping-pong.attnpkg"
compile "$root/bench/attention_backward.mlir" --target=sm_90a \
  --kernel-schedule=ping-pong -o "$bundle/packages/bench-backward-ping-pong.attnpkg"
# Autograd through attnc packages (test/python/gpu/autograd_check.py).
compile "$root/test/python/gpu/autograd_model.mlir" --target=sm_90a \
  -o "$bundle/packages/autograd_model.attnpkg"
rm -rf "$bundle/python" && mkdir -p "$bundle/python"
cp -r "$root/python/attnc" "$bundle/python/"
# attnc.flex packages of test/python/gpu/flex_mods.py, compiled here into a
# cache that the GPU machine reads without a compiler.
PYTHONPATH="$root/python" ATTNC_COMPILER="$attnc" python3 \
  "$root/test/python/gpu/flex_mods.py" "$bundle/flex-cache" sm_90a
rm -rf "$bundle/python/attnc/__pycache__"
if [ -n "${ATTNC_BASELINE:-}" ]; then
  mkdir -p "$bundle/baseline"
  cp -r "$ATTNC_BASELINE/python/attnc" "$bundle/baseline/"
  rm -rf "$bundle/baseline/attnc/__pycache__"
  cp "$ATTNC_BASELINE/lib/libattnrt.so" "$bundle/baseline/attnc/"
  compile_with "$ATTNC_BASELINE/bin/attnc" "$root/bench/attention.mlir" --target=sm_90a \
    -o "$bundle/baseline/bench.attnpkg"
  for bench in variants documents; do
    compile_with "$ATTNC_BASELINE/bin/attnc" "$root/bench/$bench.mlir" \
      --target=sm_90a -o "$bundle/baseline/bench-$bench.attnpkg"
  done
fi
# The forward kernel's pinned schedule options (TMA, ping-pong): their
# GPU-RUN cases, and test/GPU/check_tensor_maps.py on other layouts.
compile "$root/test/GPU/Inputs/schedules.mlir" --target=sm_90a \
  -o "$bundle/packages/schedules.attnpkg"
sed -n 's|^// GPU-RUN: \(.*\)|\1|p' "$root/test/GPU/Inputs/schedules.mlir" |
  while read -r args; do echo "schedules.attnpkg $args" >>"$cases"; done
# Masked-out keys holding NaN, through the Python binding (needs PyTorch).
compile "$root/test/GPU/Inputs/masked_keys.mlir" --target=sm_90a \
  -o "$bundle/packages/masked_keys.attnpkg"
compile "$root/test/GPU/Inputs/masked_keys.mlir" --target=sm_90a \
  --tensor-cores=mma-sync -o "$bundle/packages/masked_keys-mma-sync.attnpkg"
finish_compiles
rm -rf "$variants"

cat >"$bundle/run-integration.sh" <<'SCRIPT'
#!/usr/bin/env bash
# Runs every case of cases.txt with attn-run --device cuda:0 (fresh random
# inputs, poisoned outputs, fp64 reference), every line of train-cases.txt
# with attn-train on data/docs.tok and, where PyTorch is present,
# test/GPU/check_masked_keys.py, test/GPU/check_tensor_maps.py,
# test/python/gpu/flex_check.py, test/python/gpu/autograd_check.py and
# test/python/gpu/block_safetensors_check.py (the bench block against
# PyTorch on weights from one safetensors file); logs under ${OUT:-./out}.
# The cases run ATTNC_INTEGRATION_JOBS at a time (default 4: each is a
# process of its own, mostly host work on its inputs and fp64 reference,
# so one at a time left the GPU idle); their logs go into integration.log
# in the order of cases.txt. Each part's seconds are printed.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:-$PWD/out}"
mkdir -p "$out"
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
[ -d /usr/local/nvidia/lib64 ] && LD_LIBRARY_PATH="$LD_LIBRARY_PATH:/usr/local/nvidia/lib64"
passed=0 failed=0
# count NAME STATUS: counts a finished check as passed (STATUS 0) or failed
# (FAILED: NAME).
count() {
  if [ "$2" -eq 0 ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAILED: $1 (see $out/integration.log)"
  fi
}
# check NAME COMMAND...: runs COMMAND with its output in the log and counts
# it, saying how long it took.
check() {
  local name=$1 start=$SECONDS status=0
  shift
  "$@" >>"$out/integration.log" 2>&1 || status=$?
  count "$name" "$status"
  echo "$name: $((SECONDS - start)) s"
}
# The cases, ATTNC_INTEGRATION_JOBS at a time, each into its own log and
# status file; then the logs in order.
cases_dir="$(mktemp -d)"
start=$SECONDS
names=()
while read -r package args; do
  i=${#names[@]}
  names+=("attn-run $package --device cuda:0 $args")
  # shellcheck disable=SC2086
  ( "$here/bin/attn-run" "$here/packages/$package" --device cuda:0 $args \
      </dev/null >"$cases_dir/$i.log" 2>&1
    echo $? >"$cases_dir/$i.status" ) &
  while [ "$(jobs -rp | wc -l)" -ge "${ATTNC_INTEGRATION_JOBS:-4}" ]; do
    wait -n
  done
done <"$here/cases.txt"
wait
for i in "${!names[@]}"; do
  cat "$cases_dir/$i.log" >>"$out/integration.log"
  count "${names[$i]}" "$(cat "$cases_dir/$i.status" 2>/dev/null || echo 1)"
done
rm -rf "$cases_dir"
echo "${#names[@]} attn-run cases: $((SECONDS - start)) s"
# Each EXAMPLE-TRAIN line of a package here trains on cuda:0.
if [ -f "$here/train-cases.txt" ]; then
  while read -r package args; do
    [ -e "$here/packages/$package" ] || continue
    # shellcheck disable=SC2086
    check "attn-train $package --device cuda:0 $args" \
      "$here/bin/attn-train" "$here/packages/$package" --device cuda:0 \
      --data "$here/data/docs.tok" $args </dev/null
  done <"$here/train-cases.txt"
fi
# The PyTorch checks' packages stay in the first bundle (split_bundle); a
# bundle of changed packages (scripts/gpu-changed.sh) runs the checks whose
# packages it holds.
# present PACKAGE...: whether every PACKAGE (under packages/, or a folder)
# is here.
present() {
  local p
  for p in "$@"; do
    [ -e "$here/packages/$p" ] || [ -d "$here/$p" ] || return 1
  done
}
if python3 -c "import torch" 2>/dev/null; then
  present masked_keys.attnpkg masked_keys-mma-sync.attnpkg &&
    check test/GPU/check_masked_keys.py \
      env ATTNC_RUNTIME_LIBRARY="$here/lib/libattnrt.so" python3 \
      "$here/../test/GPU/check_masked_keys.py" "$here/packages/masked_keys.attnpkg" \
      "$here/packages/masked_keys-mma-sync.attnpkg"
  present schedules.attnpkg &&
    check test/GPU/check_tensor_maps.py \
      env ATTNC_RUNTIME_LIBRARY="$here/lib/libattnrt.so" python3 \
      "$here/../test/GPU/check_tensor_maps.py" "$here/packages/schedules.attnpkg"
  present flex-cache &&
    check test/python/gpu/flex_check.py \
      env PYTHONPATH="$here/python" ATTNC_RUNTIME_LIBRARY="$here/lib/libattnrt.so" \
      python3 "$here/../test/python/gpu/flex_check.py" "$here/flex-cache"
  present autograd_model.attnpkg &&
    check test/python/gpu/autograd_check.py \
      env PYTHONPATH="$here/python" python3 "$here/../test/python/gpu/autograd_check.py" \
      "$here/packages/autograd_model.attnpkg" "$here/lib/libattnrt.so"
  if present bench-block.attnpkg; then
    mkdir -p "$out/safetensors"
    check test/python/gpu/block_safetensors_check.py \
      env PYTHONPATH="$here/python" ATTNC_RUNTIME_LIBRARY="$here/lib/libattnrt.so" \
      python3 "$here/../test/python/gpu/block_safetensors_check.py" \
      "$here/packages/bench-block.attnpkg" "$here/bin/attn-run" "$out/safetensors"
  fi
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
SCRIPT
chmod +x "$bundle/run-integration.sh"

# Moves the largest packages that only cases.txt names, with their cases,
# to gpu-bundle-2, -3, ... (each with its own bin, lib, data and
# run-integration.sh, and at most 56 MiB) until the bundle holds at most
# 56 MiB, under the 64 MiB a call carries.
split_bundle() {
  local limit=$((56 * 1024)) package n=1 next=""
  rm -rf "$root"/gpu-bundle-[0-9]*
  for package in $(ls -S "$bundle/packages"); do
    [ "$(du -sk "$bundle" | cut -f1)" -le "$limit" ] && break
    case "$package" in
      bench* | masked_keys* | schedules.* | autograd_model.*) continue ;;
    esac
    local size
    size=$(du -sk "$bundle/packages/$package" | cut -f1)
    if [ -z "$next" ] || [ $(($(du -sk "$next" | cut -f1) + size)) -gt "$limit" ]; then
      n=$((n + 1))
      next="$root/gpu-bundle-$n"
      mkdir -p "$next/packages"
      cp -r "$bundle/bin" "$bundle/lib" "$bundle/data" \
        "$bundle/train-cases.txt" "$bundle/run-integration.sh" "$next/"
      : >"$next/cases.txt"
    fi
    mv "$bundle/packages/$package" "$next/packages/"
    awk -v p="$package" '$1 == p' "$cases" >>"$next/cases.txt"
    awk -v p="$package" '$1 != p' "$cases" >"$cases.rest"
    mv "$cases.rest" "$cases"
  done
  for next in "$root"/gpu-bundle-[0-9]*; do
    [ -d "$next" ] || continue
    echo "$(basename "$next"): $(wc -l <"$next/cases.txt") integration" \
      "cases, $(du -sh "$next" | cut -f1)"
  done
}
# The checksums of the packages and of the flex cache's files (before the
# split, so of both bundles), for scripts/gpu-changed.sh.
record_checksums() {
  (cd "$bundle" && sha256sum packages/*.attnpkg &&
    find flex-cache -type f | sort | xargs -r sha256sum) >"$bundle/packages.sha256"
}

record_checksums
split_bundle
echo "gpu-bundle: $(wc -l <"$cases") integration cases, $(du -sh "$bundle" | cut -f1)"
