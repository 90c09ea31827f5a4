#!/usr/bin/env bash
# Builds what the GPU tests need, here (no GPU, LLVM or driver needed), into
# $BUILD_DIR (default build-gpu/) and packs it into gpu-bundle/ for a GPU
# machine that has no toolchain:
#   gpu-bundle/lib/  libattnrt.so and its SONAME (plain copies)
#   gpu-bundle/bin/  attn-run, make-cuda-test-package, the runtime device and
#                    GPU gtests (gtest linked statically, kernels built in)
#   gpu-bundle/run.sh  runs them there; logs under ${OUT:-./out}
# Usage: scripts/gpu-bundle.sh [-jN]   (default -j1), then on the GPU
# machine: bash gpu-bundle/run.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build-gpu}"
bundle="$root/gpu-bundle"
jobs="${1:--j1}"

if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DATTNC_ENABLE_COMPILER=OFF
fi
grep -q '^ATTNC_RT_HAVE_CUDA:INTERNAL=ON' "$build/CMakeCache.txt" || {
  echo "gpu-bundle: libattnrt was configured without the cuda device" \
       "(cuda.h not found; set -DATTNC_CUDA_INCLUDE_DIR)" >&2
  exit 1
}
binaries=(attn-run attn-train make-cuda-test-package attnc_runtime_device_test
          attnc_runtime_cuda_test attnc_runtime_token_cuda_test)
ninja -C "$build" "$jobs" attnrt "${binaries[@]}"

rm -rf "$bundle"
mkdir -p "$bundle/bin" "$bundle/lib"
# Plain files, not symlinks: the binaries load the SONAME, Python loads
# libattnrt.so.
soname="$(readelf -d "$build/lib/libattnrt.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')"
cp -L "$build/lib/libattnrt.so" "$bundle/lib/"
cp -L "$build/lib/$soname" "$bundle/lib/"
for binary in "${binaries[@]}"; do
  cp "$build/bin/$binary" "$bundle/bin/"
done

# The GPU machine runs a newer glibc and libstdc++ than this one; nothing
# else from here may be needed there.
allowed='^(libattnrt\.so(\.[0-9]+)*|libstdc\+\+\.so\.6|libgcc_s\.so\.1|libc\.so\.6|libm\.so\.6|libdl\.so\.2|libpthread\.so\.0|ld-linux-x86-64\.so\.2)$'
for file in "$bundle"/lib/* "$bundle"/bin/*; do
  for needed in $(readelf -d "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    if ! [[ "$needed" =~ $allowed ]]; then
      echo "gpu-bundle: $file needs $needed, which the GPU machine lacks" >&2
      exit 1
    fi
  done
done

cat >"$bundle/run.sh" <<'EOF'
#!/usr/bin/env bash
# Runs attnc's GPU tests from this bundle (scripts/gpu-bundle.sh made it):
# nvidia-smi, the runtime device tests, the GPU tests, and attn-run --check
# (of one kernel and of a program of several) and --bench on cuda:0 with the
# cubin and the PTX test package. Logs go to
# ${OUT:-./out}; the exit status is non-zero if any step fails or if a GPU
# test was skipped (cuda:0 did not open).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:-$PWD/out}"
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0
# libattnrt from the bundle; libcuda.so.1 from the loader's path or the
# NVIDIA container's directory.
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
[ -d /usr/local/nvidia/lib64 ] &&
  LD_LIBRARY_PATH="$LD_LIBRARY_PATH:/usr/local/nvidia/lib64"

status=0
# step NAME COMMAND...: runs COMMAND with its output in $out/NAME.log.
step() {
  local name=$1 rc=0
  shift
  "$@" >"$out/$name.log" 2>&1 || rc=$?
  if [ $rc -ne 0 ]; then
    status=1
    echo "== $name: FAILED (exit $rc)"
    tail -n 30 "$out/$name.log"
  elif grep -q '^\[  SKIPPED \]' "$out/$name.log"; then
    status=1
    echo "== $name: FAILED (tests were skipped)"
    grep -m1 -A1 ': Skipped$' "$out/$name.log"
  else
    echo "== $name: ok"
    tail -n 3 "$out/$name.log"
  fi
}

bin="$here/bin"
step nvidia-smi nvidia-smi
# ReportsMissingDriver skips wherever the driver is present.
step device-test "$bin/attnc_runtime_device_test" \
  --gtest_filter=-RuntimeCudaOpenTest.ReportsMissingDriver
step cuda-test "$bin/attnc_runtime_cuda_test"
step token-cuda-test "$bin/attnc_runtime_token_cuda_test"
for kind in cubin ptx; do
  pkg="$out/cuda-test-$kind.attnpkg"
  step "make-package-$kind" "$bin/make-cuda-test-package" "$kind" "$pkg"
  step "attn-run-check-$kind" "$bin/attn-run" "$pkg" --fn attention \
    --device cuda:0 --shape B=2 --shape N=300 --shape M=77 --seed 7 --check
  step "attn-run-check-program-$kind" "$bin/attn-run" "$pkg" --fn chain \
    --device cuda:0 --shape B=2 --shape N=300 --shape M=77 --seed 7 --check
  step "attn-run-bench-$kind" "$bin/attn-run" "$pkg" --fn attention \
    --device cuda:0 --shape B=4 --shape N=2048 --shape M=2048 --check \
    --bench --iters 20
done
echo "== logs in $out"
exit $status
EOF
chmod +x "$bundle/run.sh"
echo "gpu-bundle: $(du -sh "$bundle" | cut -f1) in $bundle; run: bash gpu-bundle/run.sh"
