#!/usr/bin/env bash
# Installs dependencies, builds everything and runs every test suite: the lit
# suite (check-attnc) and the GoogleTest/ctest suites. GPU tests are skipped
# unless a GPU is present.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"

bash "$root/scripts/install-deps.sh"
BUILD_DIR="$build" bash "$root/scripts/configure.sh"
ninja -C "$build"
# The default target builds every tool (check-attnc below would build the
# ones it needs anyway, hiding a tool left out of it).
for tool in attnc attn-opt attn-run; do
  [ -x "$build/bin/$tool" ] || { echo "ninja's default target did not build $tool"; exit 1; }
done

status=0
echo "== lit (check-attnc)"
ninja -C "$build" check-attnc || status=1
echo "== ctest"
ctest --test-dir "$build" --output-on-failure -j2 || status=1
exit $status
