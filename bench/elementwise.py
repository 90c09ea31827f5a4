#!/usr/bin/env python3
"""Element-wise kernels on one GPU: attnc against PyTorch eager and
torch.compile, on the same tensors, in one process.

SwiGLU's gate, silu(g) * u, and its gradient (dg, du from g, u and dy), f32
[R, 64] with R = 4 * 4096 * 2048 / 64 (a B4 N4k d_model-2048 activation):
functions `swiglu` and `swiglu_bwd` of test/Integration/Host/elementwise.mlir
compiled for sm_90a. Both are memory-bound, so each line reports the time
and the bandwidth over the least bytes the operation must move (3 tensors
forward, 5 backward). Correctness first: the maximum absolute difference
from eager PyTorch is printed before anything is timed. Timing as
bench/attention.py does it: median of 50 runs between CUDA events, queued
while the GPU is held, so that the host's call overhead is not timed.

usage: python3 bench/elementwise.py --package elementwise.attnpkg
"""

import argparse
import os
import sys

import torch
import torch.nn.functional as F

import attnc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attention import time_runs  # noqa: E402  (shared measuring helper)

ROWS, WIDTH = 4 * 4096 * 2048 // 64, 64
WARMUP, ITERS = 5, 50


def gate(g, u):
    return F.silu(g) * u


def gate_backward(g, u, dy):
    s = torch.sigmoid(g)
    return dy * u * s * (1 + g * (1 - s)), dy * F.silu(g)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", required=True)
    args = parser.parse_args()
    package = attnc.Runtime("cuda:0").load(args.package)
    forward = package.function("swiglu")
    backward = package.function("swiglu_bwd")
    g, u, dy = (torch.randn(ROWS, WIDTH, device="cuda") for _ in range(3))
    y, dg, du = (torch.empty_like(g) for _ in range(3))
    compiled, compiled_backward = torch.compile(gate), torch.compile(
        gate_backward)

    forward(g, u, out=y)
    backward(g, u, y, dy, out=[dg, du])
    ref_dg, ref_du = gate_backward(g, u, dy)
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}")
    print(f"forward max |attnc - eager|: {(y - gate(g, u)).abs().max():.3g}")
    print(f"backward max |attnc - eager|: {(dg - ref_dg).abs().max():.3g}, "
          f"{(du - ref_du).abs().max():.3g}")
    cases = [
        ("attnc forward", lambda: forward(g, u, out=y), 3),
        ("eager forward", lambda: gate(g, u), 3),
        ("torch.compile forward", lambda: compiled(g, u), 3),
        ("attnc backward", lambda: backward(g, u, y, dy, out=[dg, du]), 5),
        ("eager backward", lambda: gate_backward(g, u, dy), 5),
        ("torch.compile backward", lambda: compiled_backward(g, u, dy), 5),
    ]
    for name, fn, tensors in cases:
        gigabytes = tensors * ROWS * WIDTH * 4 / 1e9
        ms = time_runs(lambda _: fn(), 1, WARMUP, ITERS)
        print(f"{name}: {ms:.3f} ms, {gigabytes / ms * 1e3:.0f} GB/s")


if __name__ == "__main__":
    main()
