"""Reads and writes the attnc package container (attnc/package/Package.h)
for test tools that edit packages: the header, the manifest as JSON and
the blob section, with the FNV-1a checksums recomputed on writing."""

import json
import struct

HEADER = 40


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def read(path):
    """(header bytes, manifest dict, blob section bytes) of a package."""
    with open(path, "rb") as f:
        data = f.read()
    manifest_size, blob_size = struct.unpack_from("<QQ", data, 16)
    manifest = json.loads(data[HEADER:HEADER + manifest_size])
    start = HEADER + manifest_size
    return data[:HEADER], manifest, data[start:start + blob_size]


def write(path, header, manifest, blobs):
    """Writes a package whose sizes and checksum fit its contents."""
    text = json.dumps(manifest, indent=1).encode()
    body = text + blobs
    sizes = struct.pack("<QQQ", len(text), len(blobs), fnv1a64(body))
    with open(path, "wb") as f:
        f.write(header[:16] + sizes + body)
