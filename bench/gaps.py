#!/usr/bin/env python3
"""The idle time between a block step's GPU operations, attnc against
torch.compile, on one GPU, and the time operations ran side by side.

bench/block.py's block and inputs; each case's 3 training steps are queued
behind a held GPU (so the host's enqueue time is hidden, as in the timed
runs) under torch.profiler, and the gaps between consecutive GPU
operations (kernels, memsets, copies) of its trace are summed, counted by
size and the largest listed with their neighbours.

usage: python3 bench/gaps.py PACKAGE.attnpkg [PACKAGE.attnpkg ...]
"""
import json
import os
import sys
import tempfile

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import block  # noqa: E402  (the block, its inputs and attnc's step)
import attnc  # noqa: E402

STEPS = 3
HOLD_S = 0.2


def gpu_operations(step):
    """The trace events of STEPS steps' GPU operations, in start order."""
    for _ in range(STEPS):
        step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        torch.cuda._sleep(int(2e9 * HOLD_S))
        for _ in range(STEPS):
            step()
        torch.cuda.synchronize()
    with tempfile.NamedTemporaryFile(suffix=".json") as trace:
        prof.export_chrome_trace(trace.name)
        events = json.load(open(trace.name))["traceEvents"]
    kinds = ("kernel", "gpu_memset", "gpu_memcpy")
    operations = [e for e in events if e.get("cat") in kinds]
    # The hold is the one operation longer than a tenth of a second.
    return sorted((e for e in operations if e["dur"] < 1e5),
                  key=lambda e: e["ts"])


def gaps_and_overlap(ops):
    """The idle gaps between operations in start order, as (us, the
    operation that ended last, the next one), and the microseconds during
    which an operation ran beside another (steps side by side on two
    streams): each operation's time already covered by earlier ones."""
    gaps, overlapped = [], 0.0
    last = ops[0]
    end = last["ts"] + last["dur"]
    for op in ops[1:]:
        start, finish = op["ts"], op["ts"] + op["dur"]
        if start >= end:
            gaps.append((start - end, last["name"][:50], op["name"][:50]))
        else:
            overlapped += min(end, finish) - start
        if finish > end:
            end, last = finish, op
    return gaps, overlapped


def report(name, step):
    ops = gpu_operations(step)
    gaps, overlapped = gaps_and_overlap(ops)
    kernel_time = sum(e["dur"] for e in ops) / 1e3 / STEPS
    overlap = overlapped / 1e3 / STEPS
    idle = sum(g for g, _, _ in gaps) / 1e3 / STEPS
    print(f"== {name}: {len(ops)} GPU operations in {STEPS} steps; per step "
          f"{kernel_time - overlap:.3f} ms busy ({kernel_time:.3f} ms of "
          f"operations, {overlap:.3f} ms of it beside another), {idle:.3f} "
          f"ms between operations")
    sizes = {}
    for gap, _, _ in gaps:
        size = ("<2us" if gap < 2 else "2-5us" if gap < 5 else
                "5-20us" if gap < 20 else ">=20us")
        sizes[size] = sizes.get(size, 0) + 1
    print("   gaps by size:", sizes)
    for gap, before, after in sorted(gaps, reverse=True)[:25]:
        print(f"   {gap:8.1f} us  after {before}  before {after}")


def main():
    x, cos, sin, weights = block.make_inputs()
    inputs = [x, cos, sin] + weights
    dy = torch.randn(block.B, block.N, block.C, device="cuda",
                     dtype=torch.bfloat16)
    leaves = [t.clone().requires_grad_() for t in [x] + weights]
    torch_inputs = [leaves[0], cos, sin] + leaves[1:]
    y = block.block(*torch_inputs)
    reference = torch.autograd.grad(y, leaves, dy)
    runtimes = []
    for path in sys.argv[1:]:
        name = os.path.basename(path)
        runtimes.append(attnc.Runtime("cuda:0"))
        step, _ = block.attnc_case(runtimes[-1].load(path), inputs, dy, y,
                                   reference, name)
        report(name, step)
    compiled = torch.compile(block.block)

    def compiled_step():
        out = compiled(*torch_inputs)
        torch.autograd.grad(out, leaves, dy)

    report("torch.compile", compiled_step)


if __name__ == "__main__":
    main()
