#!/usr/bin/env python3
"""A GPT-2-sized LM head with its loss, and the token embedding, on one GPU:
attnc against PyTorch eager and torch.compile, on the same tensors, in one
process.

bench/loss.mlir compiled for sm_90a: h [8192, 768] bf16, E [50304, 768]
bf16, labels [8192] i32 with every 16th token ignored (-100). The loss is
mean cross-entropy of h E^T, in f32 as nanoGPT computes it under autocast
(PyTorch: F.cross_entropy(logits.float(), labels)). forward+backward gives
dh and dE; PyTorch's autograd keeps the logits for the backward. The embedding E[ids]
forward and backward (dE from dout, a deterministic scatter in attnc,
index_put with accumulation in PyTorch) come after. Correctness first:
the loss's relative difference and the largest gradient difference
relative to the largest |value|. Timing as bench/attention.py does it.

attnc fuses the LM head into the loss (attn.linear_cross_entropy): its
forward computes the logits a vocabulary chunk at a time (--vocab-chunk)
and saves only the lse; its backward recomputes each chunk's logits. The
peak memory of a forward+backward above the inputs follows: PyTorch's
from its allocator's counters, attnc's as its outputs (the loss, the saved
values, the gradients) plus what its memory pool took during the first
step (bench/block.py measures the same way).

With --baseline-package another compilation of bench/loss.mlir (an
earlier commit's, or the same with a compiler option off) is timed in the
same process, on the same tensors.

usage: python3 bench/loss.py --package bench-loss.attnpkg
           [--baseline-package baseline.attnpkg]
"""

import argparse
import os
import sys

import torch
import torch.nn.functional as F

import attnc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attention import time_runs  # noqa: E402  (shared measuring helper)

TOKENS, WIDTH, VOCAB = 8192, 768, 50304
WARMUP, ITERS = 3, 20


def relative(a, b):
    return ((a.float() - b.float()).abs().max() / b.float().abs().max()).item()


def lm_loss(h, e, labels):
    return F.cross_entropy((h @ e.t()).float(), labels, ignore_index=-100)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", required=True)
    parser.add_argument("--baseline-package")
    args = parser.parse_args()
    runtime = attnc.Runtime("cuda:0")
    package = runtime.load(args.package)
    forward, backward = package.function("lm_loss"), package.function(
        "lm_loss_bwd")
    embed, embed_bwd = package.function("embed"), package.function("embed_bwd")
    bf16 = dict(device="cuda", dtype=torch.bfloat16)
    h = torch.randn(TOKENS, WIDTH, **bf16)
    e = 0.02 * torch.randn(VOCAB, WIDTH, **bf16)
    labels = torch.randint(0, VOCAB, (TOKENS,), device="cuda",
                           dtype=torch.int32)
    labels[::16] = -100
    dmean = torch.ones((), device="cuda", dtype=torch.float32)
    # The loss, then what the forward saves for the backward (the lse).
    outputs = allocate(forward, [h, e, labels])
    mean = outputs[0]
    dh, de = torch.empty_like(h), torch.empty_like(e)

    def step_of(forward, backward):
        def step():
            forward(h, e, labels, out=outputs)
            backward(h, e, labels, *outputs, dmean, out=[dh, de])
        return step

    attnc_step = step_of(forward, backward)

    hg, eg = h.clone().requires_grad_(), e.clone().requires_grad_()
    compiled = torch.compile(lm_loss)
    ref = lm_loss(hg, eg, labels.long())
    ref_dh, ref_de = torch.autograd.grad(ref, (hg, eg))
    torch.cuda.synchronize()
    free_before = torch.cuda.mem_get_info()[0]
    attnc_step()
    torch.cuda.synchronize()
    pool = free_before - torch.cuda.mem_get_info()[0]
    held = sum(t.numel() * t.element_size() for t in outputs + [dh, de])
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}")
    print(f"loss: attnc {mean.item():.6f}, eager {ref.item():.6f}; relative "
          f"difference {abs(mean.item() - ref.item()) / ref.item():.2g}, dh "
          f"{relative(dh, ref_dh):.2g}, dE {relative(de, ref_de):.2g}")

    ids = torch.randint(0, VOCAB, (TOKENS,), device="cuda", dtype=torch.int32)
    dout = torch.randn(TOKENS, WIDTH, **bf16)
    x, dtable = torch.empty_like(dout), torch.empty_like(e)
    embed(e, ids, out=x)
    embed_bwd(e, ids, x, dout, out=dtable)
    ref_dtable = torch.zeros(VOCAB, WIDTH, device="cuda", dtype=torch.float32)
    ref_dtable.index_put_((ids.long(),), dout.float(), accumulate=True)
    print(f"embedding: out {relative(x, e[ids.long()]):.2g}, dtable "
          f"{relative(dtable, ref_dtable):.2g}")

    def torch_step(fn):
        loss = fn(hg, eg, labels.long())
        return torch.autograd.grad(loss, (hg, eg))

    def torch_embed_bwd():
        grad = torch.zeros(VOCAB, WIDTH, **bf16)
        grad.index_put_((ids.long(),), dout, accumulate=True)
        return grad

    cases = [
        ("attnc lm loss forward", lambda: forward(h, e, labels, out=outputs)),
        ("eager lm loss forward", lambda: lm_loss(h, e, labels.long())),
        ("torch.compile lm loss forward",
         lambda: compiled(h, e, labels.long())),
        ("attnc lm loss forward+backward", attnc_step),
        ("eager lm loss forward+backward", lambda: torch_step(lm_loss)),
        ("torch.compile lm loss forward+backward",
         lambda: torch_step(compiled)),
        ("attnc embedding forward", lambda: embed(e, ids, out=x)),
        ("eager embedding forward", lambda: F.embedding(ids.long(), e)),
        ("attnc embedding backward",
         lambda: embed_bwd(e, ids, x, dout, out=dtable)),
        ("eager embedding backward (index_put)", torch_embed_bwd),
    ]
    if args.baseline_package:
        baseline = runtime.load(args.baseline_package)
        base_forward = baseline.function("lm_loss")
        cases[3:3] = [
            ("baseline lm loss forward",
             lambda: base_forward(h, e, labels, out=outputs)),
            ("baseline lm loss forward+backward",
             step_of(base_forward, baseline.function("lm_loss_bwd"))),
        ]
    for name, fn in cases:
        ms = time_runs(lambda _: fn(), 1, WARMUP, ITERS)
        print(f"{name}: {ms:.3f} ms")

    print(f"attnc lm loss forward+backward peak memory above inputs: "
          f"{(held + pool) / 2**30:.3f} GiB (outputs and gradients "
          f"{held / 2**30:.3f}, pool {pool / 2**30:.3f})")
    for name, fn in (("eager", lm_loss), ("torch.compile", compiled)):
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
        torch_step(fn)
        torch.cuda.synchronize()
        peak = torch.cuda.max_memory_allocated() - base
        print(f"{name} lm loss forward+backward peak memory above inputs: "
              f"{peak / 2**30:.3f} GiB")


def allocate(function, inputs):
    shapes = function.output_shapes([t.shape for t in inputs])
    dtypes = {"bf16": torch.bfloat16, "f32": torch.float32}
    return [
        torch.empty(shape, device="cuda", dtype=dtypes[spec.dtype])
        for shape, spec in zip(shapes, function.signature.outputs)
    ]


if __name__ == "__main__":
    main()
