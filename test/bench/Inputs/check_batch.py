"""Checks a batch file of bench/train_gpt.py batch against its token file.

  check_batch.py TOKENS BATCH_FILE B N STEP
      ids[r] and labels[r] are tokens [s, s + N) and [s + 1, s + N + 1) of
      window s = ((STEP - 1) * B + r) mod W times N, W = (count - 1) // N,
      the windows attn-train --sequential reads
"""

import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "attn-run", "Inputs"))
from safetensors_tool import read  # noqa: E402


def main(tokens_path, batch_path, b, n, step):
    b, n, step = int(b), int(n), int(step)
    data = open(tokens_path, "rb").read()
    _, _, width, count, _, _ = struct.unpack("<8sIIQII", data[:32])
    tokens = struct.unpack(f"<{count}{'H' if width == 2 else 'I'}",
                           data[32:32 + width * count])
    batch = read(batch_path)

    def tensor(name):
        shape, values = batch[name]
        if shape != [b, n] or any(not isinstance(v, int) for v in values):
            sys.exit(f"{name}: {shape}, expected integers [{b}, {n}]")
        return values

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
