#!/usr/bin/env bash
# The main job: installs dependencies, builds attnc, compiles every model in
# examples/ into a package and runs each `EXAMPLE-RUN:` line of the model
# with attn-run on fresh random inputs, checked against the fp64 reference,
# and each `EXAMPLE-TRAIN:` line with attn-train on a token file of the
# repository's own docs (byte-level, scripts/make-tokens.py).
# Runs on the GPU (sm_90a, cuda:0) when nvidia-smi sees one, else on the
# host backend; ATTNC_DEVICE=host|cuda:N overrides.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"

bash "$root/scripts/install-deps.sh"
BUILD_DIR="$build" bash "$root/scripts/configure.sh"
ninja -C "$build" attnc attn-run attn-train

device="${ATTNC_DEVICE:-}"
if [ -z "$device" ]; then
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    device=cuda:0
  else
    device=host
  fi
fi
target=host
[ "$device" = host ] || target=sm_90a
echo "running on $device (--target=$target)"

out="$build/examples"
mkdir -p "$out"
tokens="$out/docs.tok"
python3 "$root/scripts/make-tokens.py" "$root/docs" "$root/README.md" -o "$tokens"
for model in "$root"/examples/*.mlir; do
  name="$(basename "$model" .mlir)"
  package="$out/$name.attnpkg"
  "$build/bin/attnc" "$model" --target="$target" -o "$package"
  echo "== $name: compiled to $package"
  { grep '^// EXAMPLE-RUN:' "$model" || true; } | sed 's|^// EXAMPLE-RUN:||' | while read -r args; do
    echo "-- attn-run $name.attnpkg --device $device $args --check --bench"
    # shellcheck disable=SC2086
    "$build/bin/attn-run" "$package" --device "$device" $args --check --bench --iters 5
  done
  { grep '^// EXAMPLE-TRAIN:' "$model" || true; } | sed 's|^// EXAMPLE-TRAIN:||' | while read -r args; do
    echo "-- attn-train $name.attnpkg --device $device --data docs.tok $args"
    # shellcheck disable=SC2086
    "$build/bin/attn-train" "$package" --device "$device" --data "$tokens" $args \
      --metrics "$out/$name.metrics.jsonl"
  done
done
