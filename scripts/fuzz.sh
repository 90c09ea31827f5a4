#!/usr/bin/env bash
# Builds and runs attnc's libFuzzer targets for a bounded time each
# (ATTNC_FUZZ_SECONDS, default 60):
#   attnc-fuzz-package   the package reader, in $BUILD_DIR-fuzz (clang-14;
#                        lib/ built with ASan, UBSan and coverage), seeds in
#                        test/fuzz/corpus/package
#   attnc-fuzz-frontend  parse, verify and the pipelines to the tiled form,
#                        in $BUILD_DIR, seeds in test/fuzz/corpus/frontend
#                        and examples/
# A finding fails the run and leaves its input under $BUILD_DIR-fuzz/findings;
# turn it into a lit or gtest regression case. Usage: scripts/fuzz.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
fuzz_build="$build-fuzz"
seconds="${ATTNC_FUZZ_SECONDS:-60}"
findings="$fuzz_build/findings"

flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
if [ ! -f "$fuzz_build/build.ninja" ]; then
  CC=clang-14 CXX=clang++-14 cmake -G Ninja -S "$root" -B "$fuzz_build" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DATTNC_ENABLE_COMPILER=OFF -DATTNC_FUZZ_COVERAGE=ON \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="$flags" -DCMAKE_SHARED_LINKER_FLAGS="$flags" >/dev/null
fi
ninja -C "$fuzz_build" attnc-fuzz-package
ninja -C "$build" attnc-fuzz-frontend

mkdir -p "$findings"
status=0
# fuzz NAME BINARY SEED_DIR...: runs BINARY for $seconds seconds on a fresh
# working corpus grown from the seeds.
fuzz() {
  local name=$1 binary=$2
  shift 2
  local corpus="$fuzz_build/corpus-$name"
  rm -rf "$corpus" && mkdir -p "$corpus"
  echo "== fuzz $name for ${seconds}s"
  if ! "$binary" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 \
      -print_final_stats=1 -artifact_prefix="$findings/$name-" \
      "$corpus" "$@" >"$fuzz_build/$name.log" 2>&1; then
    status=1
    echo "fuzz $name: a finding (log: $fuzz_build/$name.log; inputs: $findings/)"
    tail -40 "$fuzz_build/$name.log"
  fi
  grep -E "^stat::number_of_executed_units|^stat::new_units_added" \
    "$fuzz_build/$name.log" | sed "s/^/  $name /" || true
}
ASAN_OPTIONS=detect_leaks=1 fuzz package "$fuzz_build/bin/attnc-fuzz-package" \
  "$root/test/fuzz/corpus/package"
# The compiler libraries are not built with ASan, so leaks are not tracked.
fuzz frontend "$build/bin/attnc-fuzz-frontend" -dict="$root/test/fuzz/frontend.dict" \
  "$root/test/fuzz/corpus/frontend" \
  "$root/examples"
exit $status
