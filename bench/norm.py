#!/usr/bin/env python3
"""RMSNorm on one GPU: attnc against PyTorch eager and torch.compile, on
the same tensors, in one process.

bf16 x [4 * 4096, 2048] and weight [2048] (bench/norm.mlir compiled for
sm_90a): forward, and backward from dy (dx and dweight). Both are
memory-bound, so each line reports the time and the bandwidth over the
least bytes the operation must move (x and y forward; x, dy and dx
backward). The backward recomputes the row statistic as attnc's does under
its default remat policy: attnc's rms_norm_bwd runs the forward kernel for
rstd first, PyTorch's autograd saves it. Correctness first: the largest
difference from PyTorch relative to the largest |value|. Timing as
bench/attention.py does it.

usage: python3 bench/norm.py --package bench-norm.attnpkg
"""

import argparse
import os
import sys

import torch
import torch.nn.functional as F

import attnc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attention import time_runs  # noqa: E402  (shared measuring helper)

ROWS, WIDTH, EPS = 4 * 4096, 2048, 1e-6
WARMUP, ITERS = 5, 50


def relative(a, b):
    return ((a.float() - b.float()).abs().max() / b.float().abs().max()).item()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", required=True)
    args = parser.parse_args()
    package = attnc.Runtime("cuda:0").load(args.package)
    forward, backward = package.function("rms_norm"), package.function(
        "rms_norm_bwd")
    bf16 = dict(device="cuda", dtype=torch.bfloat16)
    x = torch.randn(ROWS, WIDTH, **bf16)
    w = (1 + 0.1 * torch.randn(WIDTH, **bf16))
    dy = torch.randn(ROWS, WIDTH, **bf16)
    y, dx, dw = torch.empty_like(x), torch.empty_like(x), torch.empty_like(w)

    def norm(x, w):
        return F.rms_norm(x, (WIDTH,), w, EPS)

    compiled = torch.compile(norm)
    xg, wg = x.clone().requires_grad_(), w.clone().requires_grad_()
    out_eager, out_compiled = norm(xg, wg), compiled(xg, wg)

    forward(x, w, out=y)
    backward(x, w, y, dy, out=[dx, dw])
    ref_dx, ref_dw = torch.autograd.grad(out_eager, (xg, wg), dy,
                                         retain_graph=True)
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}")
    print(f"relative max difference from eager: y {relative(y, norm(x, w)):.2g}"
          f", dx {relative(dx, ref_dx):.2g}, dweight {relative(dw, ref_dw):.2g}")
    element = 2
    cases = [
        ("attnc forward", lambda: forward(x, w, out=y), 2),
        ("eager forward", lambda: norm(x, w), 2),
        ("torch.compile forward", lambda: compiled(x, w), 2),
        ("attnc backward", lambda: backward(x, w, y, dy, out=[dx, dw]), 3),
        ("eager backward",
         lambda: torch.autograd.grad(out_eager, (xg, wg), dy,
                                     retain_graph=True), 3),
        ("torch.compile backward",
         lambda: torch.autograd.grad(out_compiled, (xg, wg), dy,
                                     retain_graph=True), 3),
    ]
    for name, fn, tensors in cases:
        gigabytes = tensors * ROWS * WIDTH * element / 1e9
        ms = time_runs(lambda _: fn(), 1, WARMUP, ITERS)
        print(f"{name}: {ms:.3f} ms, {gigabytes / ms * 1e3:.0f} GB/s")


if __name__ == "__main__":
    main()
