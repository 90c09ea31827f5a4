#!/usr/bin/env bash
# Makes gpu-changed/ from gpu-bundle (and gpu-bundle-2): the packages whose
# checksum differs from the one an earlier bundle's packages.sha256
# records (or that it lacks), their cases and training runs (with the
# token file they read), the flex cache where the contents of its files
# changed, and the bundles' bin, lib, python and run-integration.sh.
# After a change that touches few kernels, run the earlier bundle on the
# GPU, keep its checksums, rebuild with scripts/gpu-integration.sh, then
#   bash scripts/gpu-changed.sh EARLIER/packages.sha256
# and on the GPU machine (carry gpu-changed): bash gpu-changed/run-integration.sh
# Fails when the changed packages would not fit one call's 64 MiB (then
# run the whole bundles).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
earlier="${1:?usage: gpu-changed.sh EARLIER/packages.sha256}"
bundle="$root/gpu-bundle" second="$root/gpu-bundle-2" changed="$root/gpu-changed"
[ -f "$earlier" ] || { echo "gpu-changed: no checksum file $earlier" >&2; exit 1; }
[ -f "$bundle/packages.sha256" ] ||
  { echo "gpu-changed: $bundle has no packages.sha256 (run scripts/gpu-integration.sh)" >&2; exit 1; }
rm -rf "$changed"
mkdir -p "$changed/packages"
cp -r "$bundle/bin" "$bundle/lib" "$bundle/python" "$bundle/run-integration.sh" "$changed/"
: >"$changed/cases.txt"
: >"$changed/train-cases.txt"
kept=0 total=0
# The current checksums name packages/NAME wherever the split put NAME.
while read -r sum path; do
  case "$path" in
    packages/*) ;;
    *) continue ;;
  esac
  total=$((total + 1))
  grep -qxF "$sum  $path" "$earlier" && continue
  kept=$((kept + 1))
  for from in "$bundle" "$second"; do
    [ -f "$from/$path" ] || continue
    cp "$from/$path" "$changed/packages/"
    for cases in cases.txt train-cases.txt; do
      [ -f "$from/$cases" ] || continue
      awk -v p="${path#packages/}" '$1 == p' "$from/$cases" >>"$changed/$cases"
    done
  done
done <"$bundle/packages.sha256"
[ -s "$changed/train-cases.txt" ] && cp -r "$bundle/data" "$changed/"
# A flex package's name carries the compiler's hash, so its contents decide.
flex_sums() { grep ' flex-cache/' "$1" | cut -d' ' -f1 | sort; }
if [ "$(flex_sums "$bundle/packages.sha256")" != "$(flex_sums "$earlier")" ]; then
  cp -r "$bundle/flex-cache" "$changed/"
fi
size=$(du -sk "$changed" | cut -f1)
if [ "$size" -gt $((60 * 1024)) ]; then
  echo "gpu-changed: $kept changed packages take $((size / 1024)) MiB, more than a call carries;" \
    "run gpu-bundle and gpu-bundle-2 instead" >&2
  exit 1
fi
echo "gpu-changed: $kept of $total packages changed, $(wc -l <"$changed/cases.txt") cases," \
  "$(wc -l <"$changed/train-cases.txt") training runs," \
  "$([ -d "$changed/flex-cache" ] && echo "the flex cache," || echo "no flex cache,")" \
  "$(du -sh "$changed" | cut -f1)"
