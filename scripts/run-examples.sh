#!/usr/bin/env bash
# The main job: installs dependencies, builds attnc and compiles every model
# in examples/, checking that each one round-trips through the compiler.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"

bash "$root/scripts/install-deps.sh"
BUILD_DIR="$build" bash "$root/scripts/configure.sh"
ninja -C "$build" attnc

out="$build/examples"
mkdir -p "$out"
for model in "$root"/examples/*.mlir; do
  name="$(basename "$model" .mlir)"
  "$build/bin/attnc" "$model" --emit=mlir -o "$out/$name.mlir"
  # A second pass must reproduce the first: printing is a fixed point.
  "$build/bin/attnc" "$out/$name.mlir" --emit=mlir -o "$out/$name.again.mlir"
  cmp -s "$out/$name.mlir" "$out/$name.again.mlir"
  echo "compiled $name"
done
