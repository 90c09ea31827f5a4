#!/usr/bin/env bash
# Installs dependencies, builds everything and runs every test suite: the lit
# suite (check-attnc), the GoogleTest/ctest suites, an install into a
# temporary prefix with programs built against it, the libFuzzer targets for
# a bounded time (scripts/fuzz.sh; ATTNC_SKIP_FUZZ=1 skips them), and the
# ctest suites of lib/, the runtime and attn-run again under AddressSanitizer
# and UndefinedBehaviorSanitizer (a second build, $BUILD_DIR-sanitize; skip it
# with ATTNC_SKIP_SANITIZERS=1). GPU tests are skipped unless a GPU is
# present.
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

# The suites that failed, and their failing tests, are listed again at the
# end: a CI log shortened in the middle still says what failed.
failed=()
echo "== lit (check-attnc)"
ninja -C "$build" check-attnc 2>&1 | tee "$build/check-attnc.log" || failed+=(lit)
echo "== ctest"
ctest --test-dir "$build" --output-on-failure -j2 || failed+=(ctest)
echo "== install: cmake --install; find_package, pkg-config and pip consumers"
bash "$root/scripts/test-install.sh" "$build" || failed+=(install)

if [ "${ATTNC_SKIP_FUZZ:-0}" != 1 ]; then
  echo "== fuzz: the package reader and the front end, ${ATTNC_FUZZ_SECONDS:-60}s each"
  BUILD_DIR="$build" bash "$root/scripts/fuzz.sh" || failed+=(fuzz)
fi

if [ "${ATTNC_SKIP_SANITIZERS:-0}" != 1 ]; then
  echo "== ctest under AddressSanitizer and UndefinedBehaviorSanitizer"
  san="$build-sanitize"
  flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
  if [ ! -f "$san/build.ninja" ]; then
    cmake -G Ninja -S "$root" -B "$san" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DATTNC_ENABLE_COMPILER=OFF -DCMAKE_C_FLAGS="$flags" \
      -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" \
      -DCMAKE_SHARED_LINKER_FLAGS="$flags"
  fi
  ninja -C "$san" || failed+=(sanitizer-build)
  ctest --test-dir "$san" --output-on-failure -j2 || failed+=(sanitizer-ctest)
fi

[ ${#failed[@]} -eq 0 ] && exit 0
echo "== failed: ${failed[*]}"
for suite in "${failed[@]}"; do
  case "$suite" in
  lit) grep -E '^(FAIL|XPASS|UNRESOLVED|TIMEOUT): ' "$build/check-attnc.log" || true ;;
  ctest) sed 's/^/ctest: /' "$build/Testing/Temporary/LastTestsFailed.log" || true ;;
  sanitizer-ctest) sed 's/^/sanitizer ctest: /' "$san/Testing/Temporary/LastTestsFailed.log" || true ;;
  esac
done
exit 1
