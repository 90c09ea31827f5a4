"""Edits a package's manifest the way an attacker or a broken tool would:
consistently, with every checksum recomputed, so that only what the runtime
verifies beyond checksums can catch it.

usage: edit_package.py IN OUT swap-code FUNCTION KERNEL_A KERNEL_B
  swaps the code of two kernels of FUNCTION, on every target: entry point,
  block size and dynamic shared memory, so that each launch configuration
  stays valid for its code and only the arguments differ."""

import json
import struct
import sys

HEADER = 40


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def main():
    source, target, edit, function, a, b = sys.argv[1:7]
    data = open(source, "rb").read()
    manifest_size, blob_size = struct.unpack_from("<QQ", data, 16)
    manifest = json.loads(data[HEADER:HEADER + manifest_size])
    blobs = data[HEADER + manifest_size:HEADER + manifest_size + blob_size]
    assert edit == "swap-code"
    fn = next(f for f in manifest["functions"] if f["name"] == function)
    for target_name in {k["target"] for k in fn["kernels"]}:
        ka, kb = (next(k for k in fn["kernels"]
                       if k["name"] == name and k["target"] == target_name)
                  for name in (a, b))
        for field in ("entry", "block", "dynamic_shared_memory_bytes"):
            ka[field], kb[field] = kb[field], ka[field]
    text = json.dumps(manifest).encode()
    header = data[:16] + struct.pack("<QQQ", len(text), blob_size,
                                     fnv1a64(text + blobs))
    open(target, "wb").write(header + text + blobs)


main()
