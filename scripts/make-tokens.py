#!/usr/bin/env python3
# Part of attnc. SPDX-License-Identifier: Apache-2.0
"""Turns text files into an attnc token file (docs/runtime.md, "Token files
and the data loader") with a byte-level tokenizer: each byte is one token,
vocabulary 256.

Inputs are the files given (directories are walked), else the fortune
corpus under /usr/share/games/fortunes (Debian: fortunes, fortunes-min),
read in sorted order so that the same inputs give the same file.

  scripts/make-tokens.py -o fortunes.tok
  scripts/make-tokens.py --split 0.1 -o fortunes.tok   # fortunes.train.tok
                                                       # + fortunes.val.tok
"""

import argparse
import array
import os
import struct
import sys

FORTUNES = "/usr/share/games/fortunes"
MAGIC = b"ATTNTOK1"
VERSION = 1
VOCAB_SIZE = 256
WIDTHS = {"uint16": ("H", 2), "uint32": ("I", 4)}


def text_files(paths):
    """The regular files under `paths`, sorted; fortune's .dat indexes and
    symbolic links (its .u8 aliases) are left out of walked directories."""
    found = []
    for path in paths:
        if os.path.isfile(path):
            found.append(path)
            continue
        if not os.path.isdir(path):
            sys.exit(f"make-tokens: error: no such file or directory: {path}")
        for root, dirs, files in os.walk(path):
            dirs.sort()
            for name in files:
                full = os.path.join(root, name)
                if not name.endswith(".dat") and not os.path.islink(full):
                    found.append(full)
    return sorted(found)


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def write_tokens(path, data, dtype):
    """Writes the header and `data`'s bytes as tokens, atomically."""
    code, width = WIDTHS[dtype]
    tokens = array.array(code)
    tokens.extend(data)  # one token per byte (an initializer of bytes
    # would be read as the array's raw memory instead)
    if sys.byteorder == "big":
        tokens.byteswap()
    header = struct.pack("<8sIIQII", MAGIC, VERSION, width, len(tokens),
                         VOCAB_SIZE, 0)
    temp = path + ".tmp"
    with open(temp, "wb") as out:
        out.write(header)
        out.write(tokens.tobytes())
    os.replace(temp, path)
    print(f"{path}: {len(tokens)} tokens ({dtype}, vocab {VOCAB_SIZE})")


def split_paths(output):
    stem = output[:-4] if output.endswith(".tok") else output
    return stem + ".train.tok", stem + ".val.tok"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("inputs", nargs="*",
                        help=f"text files or directories (default: {FORTUNES})")
    parser.add_argument("-o", "--output", default="tokens.tok",
                        help="token file to write (default: tokens.tok)")
    parser.add_argument("--dtype", choices=sorted(WIDTHS), default="uint16",
                        help="token width (default: uint16)")
    parser.add_argument("--split", type=float, metavar="FRACTION",
                        help="write OUTPUT's .train.tok and .val.tok instead, "
                        "the last FRACTION of the tokens for validation")
    args = parser.parse_args()
    if args.split is not None and not 0 < args.split < 1:
        parser.error("--split must be between 0 and 1")

    inputs = args.inputs or ([FORTUNES] if os.path.isdir(FORTUNES) else [])
    if not inputs:
        parser.error(f"no inputs: give text files, or install fortunes "
                     f"({FORTUNES})")
    files = text_files(inputs)
    if not files:
        parser.error("no text files in " + ", ".join(inputs))
    data = b"".join(read_bytes(path) for path in files)
    print(f"{len(files)} files, {len(data)} bytes")

    if args.split is None:
        write_tokens(args.output, data, args.dtype)
        return
    cut = len(data) - int(len(data) * args.split)
    train, val = split_paths(args.output)
    write_tokens(train, data[:cut], args.dtype)
    write_tokens(val, data[cut:], args.dtype)


if __name__ == "__main__":
    main()
