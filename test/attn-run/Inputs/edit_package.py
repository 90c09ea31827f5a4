"""Edits a package's manifest the way an attacker or a broken tool would:
consistently, with every checksum recomputed, so that only what the runtime
verifies beyond checksums can catch it.

usage: edit_package.py IN OUT swap-code FUNCTION KERNEL_A KERNEL_B
  swaps the code of two kernels of FUNCTION, on every target: entry point,
  block size and dynamic shared memory, so that each launch configuration
  stays valid for its code and only the arguments differ.
usage: edit_package.py IN OUT grid FUNCTION KERNEL DIM TERM
  replaces grid extent DIM of KERNEL of FUNCTION, on every target, by the
  one grid term TERM (JSON, e.g. '{"sym": "Nq", "ceildiv": 8}')."""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "lib"))
import attnpkg  # noqa: E402


def swap_code(fn, a, b):
    for target_name in {k["target"] for k in fn["kernels"]}:
        ka, kb = (next(k for k in fn["kernels"]
                       if k["name"] == name and k["target"] == target_name)
                  for name in (a, b))
        for field in ("entry", "block", "dynamic_shared_memory_bytes"):
            ka[field], kb[field] = kb[field], ka[field]


def set_grid(fn, kernel, dim, term):
    for k in fn["kernels"]:
        if k["name"] == kernel:
            k["grid"][int(dim)] = [json.loads(term)]


def main():
    source, target, edit, function = sys.argv[1:5]
    header, manifest, blobs = attnpkg.read(source)
    fn = next(f for f in manifest["functions"] if f["name"] == function)
    edits = {"swap-code": swap_code, "grid": set_grid}
    edits[edit](fn, *sys.argv[5:])
    attnpkg.write(target, header, manifest, blobs)


main()
