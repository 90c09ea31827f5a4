#!/usr/bin/env bash
# Installs a build into a temporary prefix and builds programs against it the
# ways a user would: a C and a C++ program through find_package(attnc), and
# the C program again through pkg-config, and the Python package through pip
# into a fresh virtual environment. Each runs a package compiled by the
# installed attnc on the host. Usage: scripts/test-install.sh BUILD_DIR
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:?usage: test-install.sh BUILD_DIR}" && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/attnc-install.XXXXXX")"
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"

cmake --install "$build" --prefix "$prefix" >"$work/install.log"
for f in bin/attnc bin/attn-opt bin/attn-run include/attnc_runtime.h \
    include/attnc/runtime/Runtime.h include/attnc/package/Package.h \
    include/attnc/Version.h lib/cmake/attnc/attncConfig.cmake \
    lib/pkgconfig/attnc.pc; do
  [ -e "$prefix/$f" ] || { echo "cmake --install did not install $f"; exit 1; }
done
soname="$(readelf -d "$prefix/lib/libattnrt.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')"
[[ "$soname" =~ ^libattnrt\.so\.[0-9]+\.[0-9]+$ ]] ||
  { echo "libattnrt's SONAME is '$soname', not libattnrt.so.MAJOR.MINOR"; exit 1; }

# Each installed header compiles alone, as C++17 and, where it is C (no
# namespace), as C11 too.
for h in $(cd "$prefix/include" && find . -name '*.h' | sed 's|^\./||' | sort); do
  echo "#include <$h>" | c++ -std=c++17 -fsyntax-only -x c++ -I"$prefix/include" - ||
    { echo "installed header $h does not compile alone as C++17"; exit 1; }
  grep -q namespace "$prefix/include/$h" ||
    echo "#include <$h>" | cc -std=c11 -fsyntax-only -x c -I"$prefix/include" - ||
    { echo "installed header $h does not compile alone as C11"; exit 1; }
done

# The installed tools, not the build tree's: attnc compiles, attn-run finds
# the installed libattnrt and checks the result against its reference.
"$prefix/bin/attnc" "$root/test/install/single_key.mlir" -o "$work/single_key.attnpkg"
env -u LD_LIBRARY_PATH "$prefix/bin/attn-run" "$work/single_key.attnpkg" --fn single_key --check \
  >"$work/run.log"

cmake -G Ninja -S "$root/test/install" -B "$work/consumers" \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_RPATH="$prefix/lib" >"$work/configure.log"
ninja -C "$work/consumers" >"$work/build.log"
"$work/consumers/c_consumer" "$work/single_key.attnpkg"
"$work/consumers/cxx_consumer" "$work/single_key.attnpkg"

# pkg-config, with the .pc file relocated by --define-prefix.
read -ra flags < <(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" \
  pkg-config --define-prefix --cflags --libs attnc)
cc "$root/test/install/consumer.c" "${flags[@]}" -lm -Wl,-rpath,"$prefix/lib" \
  -o "$work/c_consumer_pc"
"$work/c_consumer_pc" "$work/single_key.attnpkg"

# pip: the repository into a fresh virtual environment, offline; the package
# must find its runtime with no environment variable set.
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --no-index "$root"
(cd "$work" && env -u ATTNC_RUNTIME_LIBRARY -u LD_LIBRARY_PATH -u PYTHONPATH \
  "$work/venv/bin/python" "$root/test/install/single_key.py" "$work/single_key.attnpkg")
echo "install: find_package, pkg-config and pip consumers ok"
