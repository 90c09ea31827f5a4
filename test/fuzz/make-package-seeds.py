"""Writes the package fuzzer's seeds (test/fuzz/corpus/package) from
packages attnc compiled: each blob is cut to 16 bytes with its checksum and
the container's fixed, so the seeds are small and the fuzzer's mutations
land in the manifest. Usage: make-package-seeds.py OUT_DIR PACKAGE..."""

import json
import os
import struct
import sys

HEADER = 40


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def shrink(data):
    manifest_size, _ = struct.unpack_from("<QQ", data, 16)
    manifest = json.loads(data[HEADER:HEADER + manifest_size])
    section = b""
    for blob in manifest["blobs"]:
        start = HEADER + manifest_size + blob["offset"]
        piece = data[start:start + min(16, blob["size"])]
        blob.update(offset=len(section), size=len(piece),
                    fnv1a64=f"{fnv1a64(piece):016x}")
        section += piece
    text = json.dumps(manifest, indent=1).encode()
    body = text + section
    header = data[:16] + struct.pack("<QQQ", len(text), len(section), fnv1a64(body))
    return header + body


out = sys.argv[1]
for path in sys.argv[2:]:
    name = os.path.splitext(os.path.basename(path))[0]
    with open(path, "rb") as f:
        seed = shrink(f.read())
    with open(os.path.join(out, name + ".seed"), "wb") as f:
        f.write(seed)
