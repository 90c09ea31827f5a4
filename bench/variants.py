#!/usr/bin/env python3
"""Masks and score modifications on one GPU: attnc against FlexAttention.

The cases of the forward-parity issue that only FlexAttention among the
peers runs (bench/variants.mlir), bf16, causal:

  window   sliding window of 1024 keys, B1 H16 N16384 D128
  alibi    ALiBi (slope 2^(-(h+1)/2) per head), B4 H16 N4096 D64
  softcap  50 * tanh(s / 50), B2 H8 N4096 D256

Times on the same tensors, in one process:

  flex   torch.compile'd FlexAttention with the case's mask_mod as a
         BlockMask (built once per case, outside the timed runs) and its
         score_mod
  attnc  the case's function of --package through the attnc Python binding

Each case's mask and score are written once (Case.mask, Case.score) and
serve FlexAttention and the reference: fp32 math attention on batch 0 and
REFERENCE_ROWS query rows (||out - ref|| / ||ref|| above 2e-2, or NaN,
marks an output wrong and it is not timed). Timing as bench/attention.py
does it. TFLOP/s counts the allowed (query, key) pairs: 4 * D per pair and
head.

usage: python3 bench/variants.py --package FILE [--quick] [--out DIR]
"""

import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attention as forward_bench  # noqa: E402  (shared measuring helpers)

WINDOW = 1024
SOFTCAP = 50.0


def causal(q, kv):
    return q >= kv


def window(q, kv):
    return (q >= kv) & (q - kv <= WINDOW)


def alibi(s, h, q, kv):
    return s - torch.exp2((h + 1) * -0.5) * (q - kv)


def softcap(s, h, q, kv):
    return SOFTCAP * torch.tanh(s / SOFTCAP)


class Case:
    def __init__(self, function, b, h, n, d, mask, score=None):
        self.function, self.b, self.h, self.n, self.d = function, b, h, n, d
        self.mask, self.score = mask, score
        rows = torch.arange(self.n, device="cuda")
        self.pairs = sum(int(mask(rows[i:i + 1024, None], rows[None, :]).sum())
                         for i in range(0, self.n, 1024))

    @property
    def label(self):
        return f"{self.function}: B{self.b} H{self.h} N{self.n} D{self.d}"

    @property
    def flops(self):
        return 4 * self.b * self.h * self.pairs * self.d

    def as_dict(self):
        return dict(function=self.function, b=self.b, h=self.h, n=self.n,
                    d=self.d)


def cases(quick):
    all_cases = [Case("window", 1, 16, 16384, 128, window),
                 Case("alibi", 4, 16, 4096, 64, causal, alibi),
                 Case("softcap", 2, 8, 4096, 256, causal, softcap)]
    return all_cases[:1] if quick else all_cases


def make_sets(case, n_sets, gen):
    def tensor():
        return torch.randn(case.b, case.h, case.n, case.d, generator=gen,
                           device="cuda", dtype=torch.bfloat16)
    return [(tensor(), tensor(), tensor()) for _ in range(n_sets)]


def reference(case, q, k, v):
    """fp32 attention of batch 0 on a slice of query rows, with the case's
    score and mask."""
    rows = torch.linspace(0, case.n - 1, min(forward_bench.REFERENCE_ROWS, case.n),
                          device="cuda").round().long().unique()
    s = q[:1, :, rows].float() @ k[:1].float().transpose(-1, -2)
    s = s / math.sqrt(case.d)
    qi = rows[:, None]
    ki = torch.arange(case.n, device="cuda")[None, :]
    heads = torch.arange(case.h, device="cuda")[:, None, None]
    if case.score:
        s = case.score(s, heads, qi, ki)
    s = s.masked_fill(~case.mask(qi, ki), -math.inf)
    return rows, torch.softmax(s, dim=-1) @ v[:1].float()


def flex(case, sets):
    from torch.nn.attention.flex_attention import create_block_mask
    run = forward_bench.compiled_flex()
    block_mask = create_block_mask(lambda b, h, q, kv: case.mask(q, kv), None,
                                   None, case.n, case.n, device="cuda")
    score_mod = None
    if case.score:
        def score_mod(s, b, h, q, kv):
            return case.score(s, h, q, kv)
    return lambda i: run(*sets[i], score_mod=score_mod, block_mask=block_mask)


def attnc_variants(package, binding=None):
    """The case's function of `package`, as an implementation of the
    table."""
    functions = {}

    def make(case, sets):
        if case.function not in functions:
            functions[case.function] = forward_bench.NamedFunction(
                package, case.function, binding)
        return functions[case.function].runner(sets)
    return make


def measure_case(case, impls, args, gen, warmup, iters):
    sets = make_sets(case, args.sets, gen)
    rows, ref = reference(case, *sets[0])
    return forward_bench.measure_all(impls, case, sets, rows, ref, warmup,
                                     iters, args.rounds)


def main():
    forward_bench.run_pair_benchmark(
        __doc__, "bench/variants.mlir", "variants.py", flex, attnc_variants,
        measure_case, cases, "-variants", "Masks and score modifications")


if __name__ == "__main__":
    main()
