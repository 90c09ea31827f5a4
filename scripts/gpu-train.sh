#!/usr/bin/env bash
# Builds gpu-train/, the H200 training comparison of examples/gpt_125m
# against the same model in PyTorch (bench/train_gpt.py), for a GPU machine
# that has no toolchain (64 MiB per call: a bundle of its own):
#   gpu-train/bin, lib      attn-train and libattnrt (from gpu-bundle/)
#   gpu-train/packages/     gpt_125m for sm_90a
#   gpu-train/data/         a byte-level token file of Debian's fortunes
#                           (2.6M tokens; apt-get install fortunes)
#   gpu-train/run.sh        trains attnc and torch.compile on the same
#                           initial weights and batches, then compares
#   gpu-train/step.sh       times the step on the corpus's first batch,
#                           against older packages in turns when given
#   gpu-train/chunks.sh     gpt_125m with its state in 4 chunks against 1
#   gpu-train/large.sh      trains a 2.62B-parameter model (2 chunks)
#   gpu-train/determinism.sh  runs gpt_125m twice and resumed, compared
#                           bitwise, and times the step against its atomic
#                           dq sums
# Needs the built attnc and gpu-bundle/ (scripts/gpu-integration.sh).
# Usage: scripts/gpu-train.sh, then on the GPU machine:
#   OUT=out STEPS=200 bash gpu-train/run.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
out="$root/gpu-train"
[ -x "$root/gpu-bundle/bin/attn-train" ] || {
  echo "gpu-train: run scripts/gpu-integration.sh first (gpu-bundle/)" >&2
  exit 1
}
rm -rf "$out"
mkdir -p "$out/packages" "$out/data"
cp -r "$root/gpu-bundle/bin" "$root/gpu-bundle/lib" "$out/"
compile_sm90a() {
  CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}" "$build/bin/attnc" "$@" --target=sm_90a
}
# The LM head's loss over the whole vocabulary at once, as the reference
# computes it (its logits whole): 1.1 GiB more workspace than chunks of
# 8192 classes, 30 fewer launches and 5% more tokens/s (H100, one call).
compile_sm90a "$root/examples/gpt_125m.mlir" --vocab-chunk=50304 \
  -o "$out/packages/gpt_125m.attnpkg"
# The same model with its training state in 4 chunks (chunks.sh), and a
# 2.62B-parameter one whose state is 2 chunks (large.sh): 47.4 GiB at B2 x
# N2048 by attnc --explain, within an H100.
compile_sm90a "$root/examples/gpt_125m.mlir" --vocab-chunk=50304 \
  --max-flat-elements=40000000 -o "$out/packages/gpt_125m_chunks.attnpkg"
# The step with atomic dq sums (attn.train's deterministic = false), for
# determinism.sh's timing.
sed 's/attn.train = {/attn.train = {deterministic = false, /' \
  "$root/examples/gpt_125m.mlir" >"$out/gpt_125m_atomic.mlir"
compile_sm90a "$out/gpt_125m_atomic.mlir" --vocab-chunk=50304 \
  -o "$out/packages/gpt_125m_atomic.attnpkg"
rm "$out/gpt_125m_atomic.mlir"
python3 "$root/scripts/make-gpt.py" gpt_2b --d-model 2560 --heads 20 \
  --ffn 6912 --layers 32 --vocab 32000 --dtype bf16 >"$out/gpt_2b.mlir"
compile_sm90a "$out/gpt_2b.mlir" -o "$out/packages/gpt_2b.attnpkg"
rm "$out/gpt_2b.mlir"
# A corpus that does not change with the tree, so that runs of different
# sessions train on the same tokens: Debian's fortunes (2.6M bytes).
if [ ! -d /usr/share/games/fortunes ]; then
  echo "gpu-train: the corpus is Debian's fortunes: apt-get install fortunes" >&2
  exit 1
fi
python3 "$root/scripts/make-tokens.py" -o "$out/data/corpus.tok"
cat >"$out/env.sh" <<'SCRIPT'
# What the scripts share (sourced, so $0 is theirs): the bundle's
# directory, the checkout above it, ${OUT:-./out}, the runtime library,
# and gpt_125m's initial weights as one safetensors file in the current
# directory (init_weights), which attnc and PyTorch both start from.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/.."
out="${OUT:-$PWD/out}"
mkdir -p "$out"
export LD_LIBRARY_PATH="$here/lib"
init_weights() {
  python3 "$root/bench/train_gpt.py" init --out init.safetensors \
    --d-model 768 --ffn 2048 --layers 12 --vocab 50304
}
SCRIPT
cat >"$out/run.sh" <<'SCRIPT'
#!/usr/bin/env bash
# gpt_125m with attn-train against bench/train_gpt.py under torch.compile:
# the same initial weights (one safetensors file) and batches (windows in
# file order), B16 x N1024, lr 6e-4 with 20 warmup steps, STEPS steps
# (default 200). Both queue steps ahead (attn-train's --overlap auto,
# train_gpt.py --overlap); WAIT=1 also runs the PyTorch loop that waits for
# each step's loss (compile-wait.jsonl). Logs, metrics and loss.png under
# ${OUT:-./out}; with PROFILE=S, torch.compile's kernels of S more steps
# (torch.profiler).
. "$(dirname "$0")/env.sh"
args=(--steps "${STEPS:-200}" --batch 16 --seq 1024 --lr 6e-4 --warmup 20)
cd "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
init_weights
"$here/bin/attn-train" "$here/packages/gpt_125m.attnpkg" --device cuda:0 \
  --init init.safetensors --data "$here/data/corpus.tok" --sequential \
  "${args[@]}" --log-every 20 --metrics attnc.jsonl 2>&1 | tee attnc.log
python3 "$root/bench/train_gpt.py" train --init init.safetensors \
  --data "$here/data/corpus.tok" --heads 12 "${args[@]}" --log-every 20 \
  --compile --overlap --metrics compile.jsonl --profile "${PROFILE:-0}" \
  2>&1 | tee compile.log
python3 "$root/bench/train_gpt.py" compare attnc.jsonl compile.jsonl --every 20
if [ "${WAIT:-0}" = 1 ]; then
  python3 "$root/bench/train_gpt.py" train --init init.safetensors \
    --data "$here/data/corpus.tok" --heads 12 "${args[@]}" --log-every 20 \
    --compile --metrics compile-wait.jsonl 2>&1 | tail -2
  python3 "$root/bench/train_gpt.py" compare attnc.jsonl compile-wait.jsonl \
    --every 20 | tail -2
fi
python3 "$root/bench/plot_loss.py" loss.png attnc.jsonl compile.jsonl \
  --label attnc --label torch.compile
rm -f init.safetensors
SCRIPT
chmod +x "$out/run.sh"
cat >"$out/step.sh" <<'SCRIPT'
#!/usr/bin/env bash
# gpt_125m's step on the corpus's first batch (what attn-train's first step
# reads): attn-run --bench --profile (the kinds of op per step), and, given
# OLD.attnpkg arguments (another commit's package of the same model),
# bench/ab.py of those against the bundle's package in turns. ab.md and
# profile.txt under ${OUT:-./out}.
. "$(dirname "$0")/env.sh"
package="$here/packages/gpt_125m.attnpkg"
batch="$out/batch.safetensors"
python3 "$root/bench/train_gpt.py" batch --data "$here/data/corpus.tok" \
  --batch 16 --seq 1024 --out "$batch"
case="gpt_125m_step --inputs $batch --seed 3"
if [ $# -gt 0 ]; then
  packages=()
  for old in "$@"; do
    packages+=(--package "$(basename "$old" .attnpkg)=$old")
  done
  python3 "$root/bench/ab.py" "${packages[@]}" --package "new=$package" \
    --case "$case" --rounds 3 --iters 20 --attn-run "$here/bin/attn-run" \
    --out "$out/ab.md" >/dev/null
  cat "$out/ab.md"
fi
"$here/bin/attn-run" "$package" --fn $case --device cuda:0 --bench \
  --iters 20 --profile >"$out/profile.txt" 2>&1
grep -v "^  step " "$out/profile.txt"
rm -f "$batch"
SCRIPT
chmod +x "$out/step.sh"
cat >"$out/chunks.sh" <<'SCRIPT'
#!/usr/bin/env bash
# gpt_125m with its training state in 4 chunks against one chunk: 40 steps
# each from the same initial weights and batches (B16 x N1024), their losses
# compared (they differ by the order of the gradient norm's f32 sums).
# Metrics under ${OUT:-./out}.
. "$(dirname "$0")/env.sh"
cd "$out"
init_weights
for name in gpt_125m gpt_125m_chunks; do
  "$here/bin/attn-train" "$here/packages/$name.attnpkg" --device cuda:0 \
    --init init.safetensors --data "$here/data/corpus.tok" --sequential \
    --steps 40 --batch 16 --seq 1024 --lr 6e-4 --warmup 20 --log-every 10 \
    --metrics "$name.jsonl" 2>&1 | tail -2
done
python3 "$root/bench/train_gpt.py" compare gpt_125m_chunks.jsonl \
  gpt_125m.jsonl --every 5
rm -f init.safetensors
SCRIPT
chmod +x "$out/chunks.sh"
cat >"$out/large.sh" <<'SCRIPT'
#!/usr/bin/env bash
# The 2.62B-parameter model (2 chunks of training state): STEPS steps
# (default 20) at B2 x N2048 from attn-train's own initial weights.
# Metrics under ${OUT:-./out}.
. "$(dirname "$0")/env.sh"
time "$here/bin/attn-train" "$here/packages/gpt_2b.attnpkg" --device cuda:0 \
  --data "$here/data/corpus.tok" --steps "${STEPS:-20}" --batch 2 --seq 2048 \
  --lr 3e-4 --warmup 5 --log-every 2 --metrics "$out/large.jsonl"
SCRIPT
chmod +x "$out/large.sh"
cat >"$out/determinism.sh" <<'SCRIPT'
#!/usr/bin/env bash
# gpt_125m's step is the same bits on every run: two 12-step runs from the
# same weights and batches, and one killed after step 7 and resumed from
# its step-6 checkpoint, give the same losses and step-12 checkpoints
# (test/attn-train/Inputs/train_check.py); then the step against the same
# model's with atomic dq sums, in turns (step.sh). Under ${OUT:-./out}.
. "$(dirname "$0")/env.sh"
check=(python3 "$root/test/attn-train/Inputs/train_check.py")
cd "$out"
init_weights
args=(--device cuda:0 --init init.safetensors --data "$here/data/corpus.tok"
  --sequential --steps 12 --batch 16 --seq 1024 --lr 6e-4 --warmup 4
  --log-every 6 --checkpoint-every 6)
train() { "$here/bin/attn-train" "$here/packages/gpt_125m.attnpkg" "${args[@]}" "$@"; }
rm -rf run-a run-b run-resumed
train --metrics a.jsonl --checkpoint-dir run-a | tail -1
train --metrics b.jsonl --checkpoint-dir run-b | tail -1
train --metrics resumed.jsonl --checkpoint-dir run-resumed --exit-after 7 | tail -1
train --metrics resumed.jsonl --checkpoint-dir run-resumed --resume | grep -E "resumed|step 12"
status=0
for other in b resumed; do
  echo "run a against $other:"
  "${check[@]}" same-losses a.jsonl "$other.jsonl" || status=1
  "${check[@]}" same-tensors run-a/step-00000012.safetensors \
    "run-$other/step-00000012.safetensors" || status=1
done
rm -rf run-a run-b run-resumed init.safetensors
cd - >/dev/null
bash "$here/step.sh" "$here/packages/gpt_125m_atomic.attnpkg"
exit $status
SCRIPT
chmod +x "$out/determinism.sh"
echo "gpu-train: $(du -sh "$out" | cut -f1); run: OUT=out bash gpu-train/run.sh"
