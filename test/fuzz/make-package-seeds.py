"""Writes the package fuzzer's seeds (test/fuzz/corpus/package) from
packages attnc compiled: each blob is cut to 16 bytes with its checksum and
the container's fixed, so the seeds are small and the fuzzer's mutations
land in the manifest. Usage: make-package-seeds.py OUT_DIR PACKAGE..."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import attnpkg  # noqa: E402


def shrink(path, out):
    header, manifest, blobs = attnpkg.read(path)
    section = b""
    for blob in manifest["blobs"]:
        piece = blobs[blob["offset"]:blob["offset"] + min(16, blob["size"])]
        blob.update(offset=len(section), size=len(piece),
                    fnv1a64=f"{attnpkg.fnv1a64(piece):016x}")
        section += piece
    attnpkg.write(out, header, manifest, section)


out_dir = sys.argv[1]
for path in sys.argv[2:]:
    name = os.path.splitext(os.path.basename(path))[0]
    shrink(path, os.path.join(out_dir, name + ".seed"))
