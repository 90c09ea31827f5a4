#!/usr/bin/env python3
"""Packed documents on one GPU: attnc against FlexAttention.

Sequences packed from documents of different lengths, causal inside each
document (bench/documents.mlir): an i32 document id per (batch, position)
decides which keys a query sees. bf16, 16 heads of dim 128. Document
lengths are drawn from a fixed seed (8 per sequence unless the case says
otherwise), so that runs compare: the lengths decide how much of each
tile is masked, and with a draw per run the B1 N16k case read 313 and
287 TFLOP/s for attnc in two runs. The tensors come from --seed.
Times on the same tensors, in one process:

  flex   torch.compile'd FlexAttention with the BlockMask of the same
         mask_mod (document ids equal and q >= kv), built once per case
         outside the timed runs, as a training loop builds it once per
         batch
  attnc  function `documents` of --package through the attnc Python
         binding: the ids are an input, no mask is built

Correctness first: each output is compared with fp32 math attention under
the same boolean mask on batch 0 and REFERENCE_ROWS query rows
(||out - ref|| / ||ref|| above 2e-2, or NaN, marks it wrong and it is not
timed). Timing as bench/attention.py does it. TFLOP/s counts the allowed
(query, key) pairs: 4 * D * pairs per head.

usage: python3 bench/documents.py --package FILE [--quick] [--out DIR]
"""

import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attention as forward_bench  # noqa: E402  (shared measuring helpers)

HEADS, HEAD_DIM = 16, 128
DOCUMENT_SEED = 2026  # the cut points of every case's documents


class Case:
    def __init__(self, b, n, docs):
        self.b, self.n, self.docs = b, n, docs
        self.pairs = 0  # allowed (query, key) pairs per head, set by make_ids

    @property
    def label(self):
        return f"B{self.b} H{HEADS} N{self.n} D{HEAD_DIM} {self.docs} documents"

    @property
    def flops(self):
        return 4 * self.b * HEADS * self.pairs * HEAD_DIM

    def as_dict(self):
        return dict(b=self.b, n=self.n, docs=self.docs, h=HEADS, d=HEAD_DIM)


def cases(quick):
    shapes = [(1, 16384, 8)] if quick else [(1, 16384, 8), (4, 4096, 8),
                                            (1, 16384, 32)]
    return [Case(*s) for s in shapes]


def make_ids(case):
    """Document ids [B, N]: `docs` documents per sequence at cut points
    drawn from DOCUMENT_SEED; counts the allowed pairs into `case`."""
    gen = torch.Generator(device="cuda").manual_seed(DOCUMENT_SEED)
    ids = torch.empty(case.b, case.n, dtype=torch.int32, device="cuda")
    pairs = 0
    for b in range(case.b):
        cuts = torch.randperm(case.n - 1, generator=gen, device="cuda")
        cuts = torch.sort(cuts[:case.docs - 1] + 1).values.tolist()
        bounds = [0] + cuts + [case.n]
        for d, (lo, hi) in enumerate(zip(bounds, bounds[1:])):
            ids[b, lo:hi] = d
            pairs += (hi - lo) * (hi - lo + 1) // 2
    case.pairs = pairs / case.b
    return ids


def make_sets(case, n_sets, gen):
    def tensor():
        return torch.randn(case.b, HEADS, case.n, HEAD_DIM, generator=gen,
                           device="cuda", dtype=torch.bfloat16)
    return [(tensor(), tensor(), tensor()) for _ in range(n_sets)]


def reference(case, ids, q, k, v):
    rows = torch.linspace(0, case.n - 1, min(forward_bench.REFERENCE_ROWS, case.n),
                          device="cuda").round().long().unique()
    keys = torch.arange(case.n, device="cuda")
    mask = (ids[0, rows][:, None] == ids[0][None, :]) & (keys[None, :] <= rows[:, None])
    with sdpa_kernel(SDPBackend.MATH):
        ref = F.scaled_dot_product_attention(
            q[:1, :, rows].float(), k[:1].float(), v[:1].float(), attn_mask=mask)
    return rows, ref


def flex(case, sets, ids):
    from torch.nn.attention.flex_attention import create_block_mask
    run = forward_bench.compiled_flex()

    def document_causal(b, h, q, kv):
        return (ids[b, q] == ids[b, kv]) & (q >= kv)
    mask = create_block_mask(document_causal, case.b, None, case.n, case.n,
                             device="cuda")
    return lambda i: run(*sets[i], block_mask=mask)


def attnc_documents(package, binding=None):
    """Function `documents` of `package`, as an implementation of the
    table: the document ids follow q, k and v."""
    function = forward_bench.NamedFunction(package, "documents", binding)
    return lambda case, sets, ids: function.runner(sets, (ids,))


def measure_case(case, impls, args, gen, warmup, iters):
    ids = make_ids(case)
    sets = make_sets(case, args.sets, gen)
    rows, ref = reference(case, ids, *sets[0])
    with_ids = {n: (lambda c, s, make=make: make(c, s, ids))
                for n, make in impls.items()}
    return forward_bench.measure_all(with_ids, case, sets, rows, ref, warmup,
                                     iters, args.rounds)


def main():
    forward_bench.run_pair_benchmark(
        __doc__, "bench/documents.mlir", "documents.py", flex,
        attnc_documents, measure_case, cases, "-documents", "Packed documents")


if __name__ == "__main__":
    main()
