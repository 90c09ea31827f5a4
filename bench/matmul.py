#!/usr/bin/env python3
"""GEMMs of a transformer block on one GPU: attnc (its cuBLASLt library
kernels) against PyTorch, on the same tensors, in one process.

bf16, rows = 4 x 4096 (batch x sequence), d_model 2048: the QKV projection
y = x w^T with w [6144, 2048] and the MLP's down projection y = h w with w
[5632, 2048], forward and backward (dx and dw), from bench/matmul.mlir
compiled for sm_90a. Correctness first: the largest difference from
PyTorch relative to the largest |value| is printed before anything is
timed. Timing as bench/attention.py does it: median of 50 runs between
CUDA events, queued while the GPU is held.

usage: python3 bench/matmul.py --package bench-matmul.attnpkg
"""

import argparse
import os
import sys

import torch

import attnc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attention import time_runs  # noqa: E402  (shared measuring helper)

ROWS = 4 * 4096
WARMUP, ITERS = 5, 50


def relative(a, b):
    return ((a.float() - b.float()).abs().max() / b.float().abs().max()).item()


def bench_layer(package, name, k, n, weight_nk):
    """One layer: forward y = x W and backward (dx, dW), attnc and torch."""
    forward = package.function(name)
    backward = package.function(name + "_bwd")
    bf16 = dict(device="cuda", dtype=torch.bfloat16)
    x = torch.randn(ROWS, k, **bf16)
    w = torch.randn(*((n, k) if weight_nk else (k, n)), **bf16) / k**0.5
    dy = torch.randn(ROWS, n, **bf16)
    y = torch.empty(ROWS, n, **bf16)
    dx, dw = torch.empty_like(x), torch.empty_like(w)

    def torch_forward():
        return x @ w.t() if weight_nk else x @ w

    def torch_backward():
        if weight_nk:
            return dy @ w, dy.t() @ x
        return dy @ w.t(), x.t() @ dy

    forward(x, w, out=y)
    backward(x, w, y, dy, out=[dx, dw])
    ref_dx, ref_dw = torch_backward()
    print(f"{name}: x [{ROWS}, {k}], w {list(w.shape)}; relative max "
          f"difference from torch: y {relative(y, torch_forward()):.2g}, "
          f"dx {relative(dx, ref_dx):.2g}, dw {relative(dw, ref_dw):.2g}")
    flops = 2 * ROWS * k * n
    cases = [
        ("attnc forward", lambda: forward(x, w, out=y), flops),
        ("torch forward", torch_forward, flops),
        ("attnc backward", lambda: backward(x, w, y, dy, out=[dx, dw]),
         2 * flops),
        ("torch backward", torch_backward, 2 * flops),
    ]
    for case, fn, work in cases:
        ms = time_runs(lambda _: fn(), 1, WARMUP, ITERS)
        print(f"  {case}: {ms:.3f} ms, {work / ms / 1e9:.0f} TFLOP/s")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", required=True)
    args = parser.parse_args()
    package = attnc.Runtime("cuda:0").load(args.package)
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}")
    bench_layer(package, "qkv", 2048, 6144, weight_nk=True)
    bench_layer(package, "down", 5632, 2048, weight_nk=False)


if __name__ == "__main__":
    main()
