#!/usr/bin/env bash
# Installs what attnc needs to build and test on Debian 12 (run as root or
# with sudo available). Safe to run again.
set -euo pipefail

packages=(
  cmake ninja-build g++ ccache python3 python3-venv pkg-config binutils
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  nlohmann-json3-dev libdlpack-dev libgtest-dev
  clang-14 libclang-rt-14-dev
  fortunes
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
echo "installing: ${missing[*]}"
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
