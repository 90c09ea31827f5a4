#!/usr/bin/env bash
# The main job: installs dependencies, builds attnc, compiles every model in
# examples/ into a package and runs each `EXAMPLE-RUN:` line of the model
# with attn-run on fresh random inputs, checked against the fp64 reference.
# Runs on the host backend (the sm_90a backend is not built yet).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"

bash "$root/scripts/install-deps.sh"
BUILD_DIR="$build" bash "$root/scripts/configure.sh"
ninja -C "$build" attnc attn-run

out="$build/examples"
mkdir -p "$out"
for model in "$root"/examples/*.mlir; do
  name="$(basename "$model" .mlir)"
  package="$out/$name.attnpkg"
  "$build/bin/attnc" "$model" --target=host -o "$package"
  echo "== $name: compiled to $package"
  grep '^// EXAMPLE-RUN:' "$model" | sed 's|^// EXAMPLE-RUN:||' | while read -r args; do
    echo "-- attn-run $name.attnpkg $args --check --bench"
    # shellcheck disable=SC2086
    "$build/bin/attn-run" "$package" $args --check --bench --iters 5
  done
done
