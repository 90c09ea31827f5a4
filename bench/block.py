#!/usr/bin/env python3
"""A Llama-style decoder block, forward and backward, on one GPU: attnc
against the same block in PyTorch eager (SDPA) and torch.compile, on the
same tensors, in one process.

bench/block.mlir compiled for sm_90a: d_model 2048, 16 query heads over 4
key/value heads of 128, SwiGLU hidden 5632, causal, batch 4, sequence
4096, bf16. Correctness first: attnc's y and the gradients of x and of
every weight against PyTorch eager, as the largest difference relative to
the largest |value|. Then one training step of the block (forward, then
backward from a fixed dy) timed as bench/attention.py times (median of
CUDA-event runs), and the peak memory of each run above its inputs:
PyTorch's from its allocator's counters, with and without activation
checkpointing; attnc's as the bytes of the forward's outputs (y and the
values saved for the backward) and of the gradients, plus what its
stream-ordered memory pool took from the device during its first step
(each package gets its own runtime and so its own pool, which keeps its
memory: that is its high-water mark for the workspaces).

Several packages (the same block under different remat policies) are
compared in one process.

With --profile STEPS, each case's CUDA kernels over STEPS training steps
follow (torch.profiler, which sees attnc's kernels and cuBLASLt's too).

With --rounds R, every case is timed once per round and the median of
the rounds is reported (odd rounds run the cases in reverse order).

usage: python3 bench/block.py --package bench-block.attnpkg \
           [bench-block-selective.attnpkg ...] [--rounds R] [--profile STEPS]
"""

import argparse
import os
import statistics
import sys

import torch
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

import attnc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attention import time_runs  # noqa: E402  (shared measuring helper)

B, N, C, H, HKV, D, HIDDEN, EPS = 4, 4096, 2048, 16, 4, 128, 5632, 1e-5
WARMUP, ITERS = 3, 20
TORCH_DTYPES = {"bf16": torch.bfloat16, "f32": torch.float32}


def rope(x, cos, sin):
    """Rotate-half RoPE of x [B, H, N, D] in f32, rounded once."""
    half = cos.shape[-1]
    x1, x2 = x[..., :half].float(), x[..., half:2 * half].float()
    rotated = torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)
    return rotated.to(x.dtype)


def block(x, cos, sin, g1, wq, wk, wv, wo, g2, wg, wu, wd):
    n1 = F.rms_norm(x, (C,), g1, EPS)
    q = (n1 @ wq.t()).view(B, N, H, D).transpose(1, 2)
    k = (n1 @ wk.t()).view(B, N, HKV, D).transpose(1, 2)
    v = (n1 @ wv.t()).view(B, N, HKV, D).transpose(1, 2)
    o = F.scaled_dot_product_attention(rope(q, cos, sin), rope(k, cos, sin),
                                       v, is_causal=True, enable_gqa=True)
    h = x + o.transpose(1, 2).reshape(B, N, C) @ wo.t()
    n2 = F.rms_norm(h, (C,), g2, EPS)
    return h + (F.silu(n2 @ wg.t()) * (n2 @ wu.t())) @ wd.t()


def checkpointed(*args):
    return checkpoint(block, *args, use_reentrant=False)


def relative(a, b):
    return ((a.float() - b.float()).abs().max() / b.float().abs().max()).item()


def make_inputs():
    gen = torch.Generator(device="cuda").manual_seed(0)
    bf16 = dict(device="cuda", dtype=torch.bfloat16)

    def randn(*shape, scale=1.0):
        return (torch.randn(*shape, generator=gen, device="cuda") *
                scale).to(torch.bfloat16)

    inv = 1.0 / 10000 ** (torch.arange(0, D, 2, device="cuda") / D)
    angles = torch.arange(N, device="cuda")[:, None] * inv[None, :]
    x = randn(B, N, C)
    weights = [
        1 + randn(C, scale=0.1), randn(C, C, scale=C**-0.5),
        randn(HKV * D, C, scale=C**-0.5), randn(HKV * D, C, scale=C**-0.5),
        randn(C, C, scale=C**-0.5), 1 + randn(C, scale=0.1),
        randn(HIDDEN, C, scale=C**-0.5), randn(HIDDEN, C, scale=C**-0.5),
        randn(C, HIDDEN, scale=HIDDEN**-0.5)
    ]
    del bf16
    return x, angles.cos(), angles.sin(), weights


def allocate(function, inputs):
    shapes = function.output_shapes([t.shape for t in inputs])
    return [
        torch.empty(shape, device="cuda", dtype=TORCH_DTYPES[spec.dtype])
        for shape, spec in zip(shapes, function.signature.outputs)
    ]


def attnc_case(package, inputs, dy, y, reference, name):
    """Checks one package's block against eager's y and gradients; returns
    its training step and its peak memory above the inputs."""
    forward = package.function("llama_block")
    backward = package.function("llama_block_bwd")
    outputs = allocate(forward, inputs)
    grads = allocate(backward, inputs + outputs + [dy])

    def step():
        forward(*inputs, out=outputs)
        backward(*inputs, *outputs, dy, out=grads)

    torch.cuda.synchronize()
    free_before = torch.cuda.mem_get_info()[0]
    step()
    torch.cuda.synchronize()
    pool = free_before - torch.cuda.mem_get_info()[0]
    held = sum(t.numel() * t.element_size() for t in outputs + grads)
    names = ["x", "g1", "wq", "wk", "wv", "wo", "g2", "wg", "wu", "wd"]
    print(f"{name}: relative max difference from eager: y "
          f"{relative(outputs[0], y):.2g}, " + ", ".join(
              f"d{n} {relative(got, want):.2g}"
              for n, got, want in zip(names, grads, reference)))
    print(f"{name}: saved {len(outputs) - 1} values, "
          f"{(held - outputs[0].numel() * 2) / 2**30:.2f} GiB with the "
          f"gradients; pool {pool / 2**30:.2f} GiB")
    return step, held + pool


def print_profiles(cases, steps):
    """Prints, per case, the CUDA kernels of `steps` training steps by their
    total time (torch.profiler sees attnc's kernels and library calls too)."""
    from torch.profiler import ProfilerActivity, profile
    for name, step in cases:
        step()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(steps):
                step()
            torch.cuda.synchronize()
        print(f"{name}: CUDA kernels of {steps} steps, by total time")
        print(prof.key_averages().table(sort_by="cuda_time_total",
                                        row_limit=30,
                                        max_name_column_width=70))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", required=True, nargs="+")
    parser.add_argument("--rounds", type=int, default=1,
                        help="time every case once per round (odd rounds "
                        "in reverse order) and report the median of the "
                        "rounds: the step's spread between runs (~2%%) is "
                        "larger than many kernel changes")
    parser.add_argument("--profile", type=int, metavar="STEPS", default=0,
                        help="also print each case's CUDA kernels over "
                        "STEPS training steps (torch.profiler)")
    args = parser.parse_args()
    x, cos, sin, weights = make_inputs()
    inputs = [x, cos, sin] + weights
    dy = torch.randn(B, N, C, device="cuda", dtype=torch.bfloat16)
    leaves = [t.clone().requires_grad_() for t in [x] + weights]
    torch_inputs = [leaves[0], cos, sin] + leaves[1:]
    y = block(*torch_inputs)
    reference = torch.autograd.grad(y, leaves, dy)
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}")
    attnc_steps, memory, runtimes = [], [], []
    for path in args.package:
        name = "attnc " + os.path.basename(path).removesuffix(".attnpkg")
        # A runtime per package: each has its own memory pool, which starts
        # empty, so the pool's growth in the first step is this package's.
        runtimes.append(attnc.Runtime("cuda:0"))
        step, bytes_ = attnc_case(runtimes[-1].load(path), inputs, dy, y,
                                  reference, name)
        attnc_steps.append((name, step))
        memory.append((name, bytes_))

    compiled = torch.compile(block)

    def torch_step(fn):
        def step():
            out = fn(*torch_inputs)
            torch.autograd.grad(out, leaves, dy)
        return step

    flops = 2 * B * N * C * (C + 2 * HKV * D + C + 3 * HIDDEN) * 3
    flops += 4 * B * H * N * N * D / 2 * 3.5  # causal attention, fwd + bwd
    cases = attnc_steps + [("eager", torch_step(block)),
             ("torch.compile", torch_step(compiled)),
             ("eager, checkpointed", torch_step(checkpointed))]
    rounds = {name: [] for name, _ in cases}
    for r in range(args.rounds):
        for name, step in cases if r % 2 == 0 else cases[::-1]:
            rounds[name].append(time_runs(lambda _: step(), 1, WARMUP, ITERS))
    times = {name: statistics.median(ms) for name, ms in rounds.items()}
    for name, _ in cases:
        ms = times[name]
        spread = (f" (rounds: {', '.join(f'{t:.2f}' for t in rounds[name])})"
                  if args.rounds > 1 else "")
        print(f"{name} forward+backward: {ms:.2f} ms, "
              f"{flops / ms / 1e9:.0f} TFLOP/s{spread}")
    if args.profile:
        print_profiles(cases, args.profile)
    for ours, _ in attnc_steps:
        for name in ("eager", "torch.compile", "eager, checkpointed"):
            print(f"{ours} / {name}: {times[name] / times[ours]:.2f}x")
    for name, bytes_ in memory:
        print(f"{name} peak memory above inputs: {bytes_ / 2**30:.2f} GiB")
    for name, fn in (("eager", block), ("eager, checkpointed", checkpointed),
                     ("torch.compile", compiled)):
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
        out = fn(*torch_inputs)
        torch.autograd.grad(out, leaves, dy)
        torch.cuda.synchronize()
        peak = torch.cuda.max_memory_allocated() - base
        print(f"{name} peak memory above inputs: {peak / 2**30:.2f} GiB")


if __name__ == "__main__":
    main()
