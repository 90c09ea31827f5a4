"""Checks an attnc GPU package on tensors of unusual layouts (run on a GPU).

The tensor-core kernel loads 16 bytes at a time when a tensor's layout
allows it (unit inner stride, outer strides and base aligned to 8 elements)
and falls back to element loads otherwise. This runs both paths through the
Python binding on PyTorch CUDA tensors and compares each result with fp32
SDPA. It also runs one call on a user stream (a non-blocking torch stream
whose inputs are written only after a long sleep on that stream): a kernel
launched anywhere but that stream would read them too early.

    python3 bench/check_layouts.py PACKAGE [--function hd64] [--causal]

Prints one line per layout and exits non-zero if any is wrong.
"""

import argparse
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import torch  # noqa: E402

import attnc  # noqa: E402


def layouts(b, h, n, d):
    """(name, tensor) pairs of [b, h, n, d] bf16 views with different strides."""
    def fresh(*shape):
        return torch.randn(*shape, device="cuda", dtype=torch.bfloat16)
    yield "contiguous", fresh(b, h, n, d)
    yield "bnhd-permuted", fresh(b, n, h, d).permute(0, 2, 1, 3)
    yield "inner-stride-2", fresh(b, h, n, 2 * d)[..., ::2]
    yield "misaligned-base", fresh(b * h * n * d + 1)[1:].view(b, h, n, d)
    yield "row-stride-not-8", fresh(b, h, n, d + 3)[..., :d]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("package")
    parser.add_argument("--function", default="hd64")
    parser.add_argument("--causal", action="store_true",
                        help="the function is causal: compare with causal SDPA")
    args = parser.parse_args()
    torch.manual_seed(0)
    b, h, n = 2, 16, 1000
    failures = 0
    with attnc.Runtime("cuda:0") as rt, rt.load(args.package) as pkg:
        fn = pkg.function(args.function)
        d = fn.signature.inputs[0].shape[3]
        for name, q in layouts(b, h, n, d):
            k = torch.randn(b, h, n, d, device="cuda", dtype=torch.bfloat16)
            v = torch.randn(b, h, n, d, device="cuda", dtype=torch.bfloat16)
            out, lse = attnc.torch_call(fn, q, k, v)
            torch.cuda.synchronize()
            ref = reference(q, k, v, args.causal)
            err = ((out.float() - ref).norm() / ref.norm()).item()
            ok = err <= 2e-2 and not math.isnan(err)
            failures += not ok
            print(f"{name}: strides {tuple(q.stride())} offset {q.storage_offset()}: "
                  f"rel_err {err:.2g} {'ok' if ok else 'FAILED'}")
        failures += not check_user_stream(fn, b, h, n, d, args.causal)
    sys.exit(1 if failures else 0)


def reference(q, k, v, causal):
    return torch.nn.functional.scaled_dot_product_attention(
        q.float(), k.float(), v.float(), is_causal=causal,
        scale=1 / math.sqrt(q.shape[3]))


def check_user_stream(fn, b, h, n, d, causal):
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        torch.cuda._sleep(200_000_000)  # ~0.1 s of GPU time before the inputs exist
        q, k, v = (torch.randn(b, h, n, d, device="cuda", dtype=torch.bfloat16)
                   for _ in range(3))
        out, lse = attnc.torch_call(fn, q, k, v)  # torch's current stream
    stream.synchronize()
    ref = reference(q, k, v, causal)
    err = ((out.float() - ref).norm() / ref.norm()).item()
    ok = err <= 2e-2 and not math.isnan(err)
    print(f"user stream {stream.cuda_stream:#x}: rel_err {err:.2g} {'ok' if ok else 'FAILED'}")
    return ok


if __name__ == "__main__":
    main()
