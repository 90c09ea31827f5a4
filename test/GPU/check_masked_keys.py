"""Checks that masked-out keys holding NaN reach no output (run on a GPU).

    python3 test/GPU/check_masked_keys.py PACKAGE...

PACKAGE: Inputs/masked_keys.mlir compiled for sm_90a (with any --tensor-cores).
Keys from 200 on are masked for every query; their K and V rows are NaN
from 256 on (the whole tiles the kernels skip; rows 200-255 share a tile
with visible keys and stay finite). Every output must match fp32 SDPA over
the first 200 keys. Prints a line per function and exits non-zero on any
mismatch.
"""

import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))

import torch  # noqa: E402

import attnc  # noqa: E402

VALID, PADDED_FROM, N = 200, 256, 1024


def check(fn, d):
    q, k, v = (torch.randn(2, 4, N, d, device="cuda", dtype=torch.bfloat16)
               for _ in range(3))
    k[:, :, PADDED_FROM:] = float("nan")
    v[:, :, PADDED_FROM:] = float("nan")
    out, lse = attnc.torch_call(fn, q, k, v)
    torch.cuda.synchronize()
    ref = torch.nn.functional.scaled_dot_product_attention(
        q.float(), k[:, :, :VALID].float(), v[:, :, :VALID].float(),
        scale=1 / math.sqrt(d))
    err = ((out.float() - ref).norm() / ref.norm()).item()
    ok = err <= 2e-2 and not math.isnan(err) and torch.isfinite(lse).all().item()
    print(f"{fn.name}: rel_err {err:.2g}, lse finite {torch.isfinite(lse).all().item()} "
          f"{'ok' if ok else 'FAILED'}")
    return ok


def main():
    torch.manual_seed(0)
    failures = 0
    with attnc.Runtime("cuda:0") as rt:
        for path in sys.argv[1:]:
            with rt.load(path) as pkg:
                for name, d in (("padded_hd64", 64), ("padded_hd128", 128)):
                    print(f"{os.path.basename(path)} ", end="")
                    failures += not check(pkg.function(name), d)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
