#!/usr/bin/env python3
"""The Llama block of bench/block.py on a GPU from one safetensors file.

PyTorch and attn-run read the same inputs (x, the rotary tables, every
weight and the cotangent dy) from one safetensors file: PyTorch eager
computes y and the gradients with autograd; attn-run runs the package's
forward (--inputs FILE --save-outputs) and then its backward on the
forward's saved outputs. attnc's y and gradients must match PyTorch's
within bf16 tolerance (the largest difference relative to the largest
|value|).

usage: block_safetensors_check.py PACKAGE ATTN_RUN WORKDIR
"""

import os
import subprocess
import sys

import torch

import attnc
from attnc import safetensors

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "bench"))
import block  # noqa: E402  (bench/block.py: the block and its inputs)

TOLERANCE = 0.05


def attn_run(attn_run_bin, package, fn, inputs, output):
    args = [attn_run_bin, package, "--fn", fn, "--device", "cuda:0"]
    for path in inputs:
        args += ["--inputs", path]
    subprocess.run(args + ["--save-outputs", output], check=True)


def main():
    package, attn_run_bin, workdir = sys.argv[1:4]
    functions = attnc.Runtime("cuda:0").load(package)
    forward = functions.function("llama_block").signature
    backward = functions.function("llama_block_bwd").signature
    x, cos, sin, weights = block.make_inputs()
    dy = torch.randn(block.B, block.N, block.C, device="cuda").to(torch.bfloat16)
    values = [x, cos, sin] + weights
    named = {sig.name: v for sig, v in zip(forward.inputs, values)}
    named[backward.inputs[-1].name] = dy
    path = os.path.join(workdir, "block-inputs.safetensors")
    safetensors.save(path, named)

    # PyTorch runs on what it reads back from the file.
    read = safetensors.load(path, "cuda")
    values = [read[sig.name] for sig in forward.inputs]
    leaves = [values[0].clone().requires_grad_()] + [
        w.clone().requires_grad_() for w in values[3:]]
    y = block.block(leaves[0], values[1], values[2], *leaves[1:])
    expected = [y] + list(torch.autograd.grad(y, leaves, read[backward.inputs[-1].name]))

    saved = os.path.join(workdir, "block-forward.safetensors")
    grads = os.path.join(workdir, "block-gradients.safetensors")
    attn_run(attn_run_bin, package, "llama_block", [path], saved)
    attn_run(attn_run_bin, package, "llama_block_bwd", [path, saved], grads)
    got = safetensors.load(saved, "cuda")
    got.update(safetensors.load(grads, "cuda"))
    names = [forward.outputs[0].name] + [sig.name for sig in backward.outputs]
    failed = False
    for name, want in zip(names, expected):
        err = block.relative(got[name], want)
        ok = err <= TOLERANCE
        failed |= not ok
        print(f"{name}: relative max difference from PyTorch {err:.2g} "
              f"(tol {TOLERANCE}) {'ok' if ok else 'FAILED'}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
