"""Checks a batch file of bench/train_gpt.py batch against its token file.

  check_batch.py TOKENS BATCH_FILE B N STEP
      ids[r] and labels[r] are tokens [s, s + N) and [s + 1, s + N + 1) of
      window s = ((STEP - 1) * B + r) mod W times N, W = (count - 1) // N,
      the windows attn-train --sequential reads
"""

import json
import struct
import sys


def main(tokens_path, batch_path, b, n, step):
    b, n, step = int(b), int(n), int(step)
    data = open(tokens_path, "rb").read()
    _, _, width, count, _, _ = struct.unpack("<8sIIQII", data[:32])
    tokens = struct.unpack(f"<{count}{'H' if width == 2 else 'I'}",
                           data[32:32 + width * count])
    blob = open(batch_path, "rb").read()
    (size,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + size])
    body = blob[8 + size:]

    def tensor(name):
        entry = header[name]
        if entry["dtype"] != "I32" or entry["shape"] != [b, n]:
            sys.exit(f"{name}: {entry['dtype']} {entry['shape']}, "
                     f"expected I32 [{b}, {n}]")
        lo, hi = entry["data_offsets"]
        return struct.unpack(f"<{b * n}i", body[lo:hi])

    ids, labels = tensor("ids"), tensor("labels")
    windows = (count - 1) // n
    for r in range(b):
        start = ((step - 1) * b + r) % windows * n
        if list(ids[r * n:(r + 1) * n]) != list(tokens[start:start + n]):
            sys.exit(f"ids row {r} is not tokens [{start}, {start + n})")
        if list(labels[r * n:(r + 1) * n]) != list(
                tokens[start + 1:start + n + 1]):
            sys.exit(f"labels row {r} is not tokens [{start + 1}, "
                     f"{start + n + 1})")
    print(f"{b} rows of {n}: the windows of step {step}")


if __name__ == "__main__":
    main(*sys.argv[1:])
