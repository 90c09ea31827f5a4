#!/usr/bin/env python3
"""Safetensors files for attn-run's tests, with the standard library only.

  safetensors_tool.py write PATH NAME:DTYPE:AxB[:SCALE]...
      tensors filled with SCALE * ((i * 7) % 11 - 5) at flat index i
      (DTYPE F32, F16 or I32, whose values are rounded)
  safetensors_tool.py linear-check INPUTS OUTPUTS
      checks OUTPUTS' out [.., 80] = x [.., 48] w[80, 48]^T from INPUTS
  safetensors_tool.py seed-check SEED OUTPUTS ROW...
      checks OUTPUTS' out rows ROW... of linear (x [.., 48], w [80, 48])
      run on attn-run's random inputs of SEED, which it draws here: the
      PortableNormal sequence of lib/support/Random.h, x's values first,
      then w's, each element the sum of 12 uniforms minus 6
  safetensors_tool.py truncate PATH BYTES
"""

import json
import struct
import sys

FORMATS = {"F32": "f", "F16": "e", "I32": "i"}


def read(path):
    data = open(path, "rb").read()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        blob = data[8 + length + begin:8 + length + end]
        fmt = FORMATS[entry["dtype"]]
        count = len(blob) // struct.calcsize(fmt)
        tensors[name] = (entry["shape"], struct.unpack(f"<{count}{fmt}", blob))
    return tensors


def write(path, specs):
    header, blobs, offset = {}, b"", 0
    for spec in specs:
        name, dtype, shape, *scale = spec.split(":")
        dims = [int(d) for d in shape.split("x")]
        count = 1
        for d in dims:
            count *= d
        step = float(scale[0]) if scale else 0.1
        values = [step * ((i * 7) % 11 - 5) for i in range(count)]
        if dtype == "I32":
            values = [round(v) for v in values]
        blob = struct.pack(f"<{count}{FORMATS[dtype]}", *values)
        header[name] = {"dtype": dtype, "shape": dims,
                        "data_offsets": [offset, offset + len(blob)]}
        blobs += blob
        offset += len(blob)
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + blobs)


MASK64 = (1 << 64) - 1
GAMMA = 0x9e3779b97f4a7c15


def portable_normal(seed, index):
    """Value `index` of PortableNormal(seed): SplitMix64 outputs 12 index
    + 1 to 12 index + 12, each state seed + n * GAMMA."""
    total = 0.0
    for n in range(12 * index + 1, 12 * index + 13):
        z = (seed + n * GAMMA) & MASK64
        z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & MASK64
        z ^= z >> 31
        total += (z >> 11) * 2.0 ** -53
    # rounded to f32, as attn-run stores them
    return struct.unpack("<f", struct.pack("<f", total - 6.0))[0]


def seed_check(seed, outputs, rows):
    oshape, out = read(outputs)["out"]
    x_count = len(out) // 80 * 48
    w = [portable_normal(seed, x_count + i) for i in range(80 * 48)]
    worst = 0.0
    for r in rows:
        x = [portable_normal(seed, r * 48 + k) for k in range(48)]
        for n in range(80):
            want = sum(x[k] * w[n * 48 + k] for k in range(48))
            worst = max(worst, abs(out[r * 80 + n] - want))
    print(f"seed-check: max |out - x w^T| {worst:.1e} over {len(rows)} rows",
          "ok" if worst < 1e-3 else "FAILED")


def linear_check(inputs, outputs):
    (xshape, x), (_, w) = read(inputs)["x"], read(inputs)["w"]
    oshape, out = read(outputs)["out"]
    rows = len(x) // 48
    assert oshape == xshape[:-1] + [80], oshape
    worst = 0.0
    for r in range(rows):
        for n in range(80):
            want = sum(x[r * 48 + k] * w[n * 48 + k] for k in range(48))
            worst = max(worst, abs(out[r * 80 + n] - want))
    print(f"linear-check: max |out - x w^T| {worst:.1e}",
          "ok" if worst < 1e-4 else "FAILED")


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "write":
        write(args[0], args[1:])
    elif command == "linear-check":
        linear_check(*args)
    elif command == "seed-check":
        seed_check(int(args[0]), args[1], [int(r) for r in args[2:]])
    elif command == "truncate":
        data = open(args[0], "rb").read()
        open(args[0], "wb").write(data[:int(args[1])])
