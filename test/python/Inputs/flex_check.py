"""Traces FlexAttention-style Python masks and scores with attnc.flex,
compiles them for the host and compares each with the same function written
in MLIR (flex_masks.mlir) on the same random inputs, some reading captured
tensors (document ids, a bias table); then that the callable is a torch
custom op (against the stand-in torch, Inputs/fake_torch) named after its
package, that it passes its captured tensors (seeing changes made in
place; another tensor of the same kind needs no compile), the package cache
and the tracer's errors.

usage: flex_check.py HANDWRITTEN_PACKAGE CACHE_DIR [SEED]"""

import ctypes
import os
import random
import re
import sys

import attnc
import reference
from attnc import flex

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "fake_torch"))
import torch  # noqa: E402  (the stand-in)

B, HQ, HKV, NQ, NK, D = 2, 4, 2, 37, 45, 16


def documents(b, h, q_idx, kv_idx):
    return (q_idx // 8 == kv_idx // 8) & (kv_idx <= q_idx)


def periodic(b, h, q_idx, kv_idx):
    return (q_idx - kv_idx) % 5 != 1


def softcap(score, b, h, q_idx, kv_idx):
    return 20 * flex.tanh(score / 20)


def alibi(score, b, h, q_idx, kv_idx):
    return score - flex.exp2(-(h + 1)) * (q_idx - kv_idx)


# Captured tensors, filled by compare(): a document id per (batch, key
# position), and a bias per (head, query, key) with fewer rows than there
# are queries (reads past its end give 0).
IDS = torch.Tensor("i32", (B, NK), [0] * (B * NK))
BIAS = torch.Tensor("f32", (HQ, 32, NK), [0.0] * (HQ * 32 * NK))


def documents_of(ids):
    def documents_ids(b, h, q_idx, kv_idx):
        return (ids[b, q_idx] == ids[b, kv_idx]) & (kv_idx <= q_idx)
    return documents_ids


def bias_table(score, b, h, q_idx, kv_idx):
    return score + BIAS[h, q_idx, kv_idx]


def biased_documents(score, b, h, q_idx, kv_idx):
    return score + BIAS[h, q_idx, kv_idx] - 0.5 * IDS[b, kv_idx]


CASES = {
    "documents": dict(mask_mod=documents),
    "periodic": dict(mask_mod=periodic),
    "softcap": dict(score_mod=softcap, scale=0.25),
    "alibi": dict(score_mod=alibi, causal=True),
    "documents_ids": dict(mask_mod=documents_of(IDS)),
    "bias_table": dict(score_mod=bias_table),
    "documents_bias": dict(mask_mod=documents_of(IDS),
                           score_mod=biased_documents),
}
# The captured tensors of each case, in the functions' argument order.
CAPTURES = {"documents_ids": (IDS,), "bias_table": (BIAS,),
            "documents_bias": (IDS, BIAS)}


def buffer(values):
    return (ctypes.c_float * len(values))(*values)


def run(fn, q, k, v, captures=()):
    """fn on q, k, v (buffers) and captured (stand-in torch) tensors."""
    out = buffer([float("nan")] * (B * HQ * NQ * D))
    lse = buffer([float("nan")] * (B * HQ * NQ))
    T = lambda data, shape: attnc.Tensor(ctypes.addressof(data), "f32", shape)
    fn.call([T(q, (B, HQ, NQ, D)), T(k, (B, HKV, NK, D)), T(v, (B, HKV, NK, D)),
             *captures],
            [T(out, (B, HQ, NQ, D)), T(lse, (B, HQ, NQ))])
    return list(out), list(lse)


def max_difference(expected, got):
    # Rows with no visible key have lse -inf in both.
    return max(abs(a - b) if a != b else 0.0
               for a, b in zip(expected[0] + expected[1], got[0] + got[1]))


def random_ids(rng):
    """Document ids along each batch's keys: runs of random length."""
    ids = []
    for _ in range(B):
        doc = rng.randrange(3)
        for _ in range(NK):
            doc += rng.random() < 0.15
            ids.append(doc)
    return ids


def flex_attention(name, cache):
    return flex.attention(**CASES[name], heads=(HQ, HKV), head_dim=D,
                          dtype="f32", cache_dir=cache, name=name)


def compare(handwritten, cache, rng):
    ok = True
    q = buffer([rng.gauss(0, 1) for _ in range(B * HQ * NQ * D)])
    k = buffer([rng.gauss(0, 1) for _ in range(B * HKV * NK * D)])
    v = buffer([rng.gauss(0, 1) for _ in range(B * HKV * NK * D)])
    tensors = [torch.Tensor("f32", shape, list(values)) for shape, values in
               (((B, HQ, NQ, D), q), ((B, HKV, NK, D), k), ((B, HKV, NK, D), v))]
    IDS.assign(random_ids(rng))
    BIAS.assign([rng.gauss(0, 1) for _ in range(HQ * 32 * NK)])
    ops = {}
    for name in CASES:
        traced = flex_attention(name, cache)
        captures = CAPTURES.get(name, ())
        ok &= len(traced.captures) == len(captures) and all(
            a is b for a, b in zip(traced.captures, captures))
        expected = run(handwritten.function(name), q, k, v, captures)
        got = run(traced.function, q, k, v, captures)
        diff = max_difference(expected, got)
        print(f"{name}: max |flex - mlir| = {diff:.3g}, compiled {traced.compiled}")
        ok &= diff <= 1e-5
        # The callable on (stand-in) torch tensors: through its custom op.
        op = traced.op
        calls = len(op.forward_op.calls)
        out, lse = traced(*tensors)
        same = [out.tolist(), lse.tolist()] == list(got)
        print(f"{name}: callable is op {op.name}: "
              f"{len(op.forward_op.calls) == calls + 1}, fake "
              f"{op.forward_op.fake is not None}, same as the function: {same}")
        ok &= same
        ops[name] = op.name
    return ok, ops


def check_captures(handwritten, cache, rng):
    """The callable passes the tensor it captured on every call, so it sees
    ids changed in place; ids in another tensor of the same dtype and rank
    take the same package (the module has the type, not the values)."""
    tensors = [torch.Tensor("f32", shape, [rng.gauss(0, 1) for _ in
                                          range(shape[0] * shape[1] *
                                                shape[2] * shape[3])])
               for shape in ((B, HQ, NQ, D), (B, HKV, NK, D), (B, HKV, NK, D))]
    attention = flex_attention("documents_bias", cache)
    fn = handwritten.function("documents_bias")
    buffers = [t.buffer for t in tensors]
    before = [t.tolist() for t in attention(*tensors)]
    IDS.assign([i % 3 for i in range(B * NK)])  # in place: other documents
    after = [t.tolist() for t in attention(*tensors)]
    diff = max_difference(run(fn, *buffers, (IDS, BIAS)), after)
    print(f"ids changed in place: seen {after != before}, "
          f"max |flex - mlir| = {diff:.3g}")
    ok = after != before and diff <= 1e-5
    other = torch.Tensor("i32", (B, NK + 7),
                         [rng.randrange(4) for _ in range(B * (NK + 7))])
    again = flex.attention(mask_mod=documents_of(other), heads=(HQ, HKV),
                           head_dim=D, dtype="f32", cache_dir=cache,
                           name="documents_ids")
    got = [t.tolist() for t in again(*tensors)]
    diff = max_difference(run(handwritten.function("documents_ids"), *buffers,
                              (other,)), got)
    print(f"another id tensor: compiled {again.compiled}, captures it "
          f"{again.captures[0] is other}, max |flex - mlir| = {diff:.3g}")
    print(attention.mlir)
    return ok and diff <= 1e-5


def check_op_names(cache, ops):
    """The op of a flex callable is named after its package: the same
    attention made again (from the cache) has the same op, another mask
    under the same function name another one."""
    again = flex_attention("documents", cache)
    print(f"op names: valid "
          f"{all(re.fullmatch(r'attnc::[a-z_]+_[0-9a-f]{16}', n) for n in ops.values())}"
          f", distinct {len(set(ops.values())) == len(ops)}, made again "
          f"{again.op.name == ops['documents']}")
    other = flex.attention(mask_mod=periodic, heads=(HQ, HKV), head_dim=D,
                           dtype="f32", cache_dir=cache, name="documents")
    print(f"another mask named documents: another op "
          f"{other.op.name != ops['documents']}")


def check_cache(cache):
    again = flex_attention("alibi", cache)
    print(f"cached: compiled {again.compiled}, {again.package_path.endswith('.attnpkg')}")
    # A node without the compiler takes the package from the cache.
    alone = flex.attention(score_mod=alibi, causal=True, heads=(HQ, HKV), head_dim=D,
                           dtype="f32", cache_dir=cache, name="alibi",
                           compiler=False)
    print(f"cache only: {alone.package_path == again.package_path}")
    try:
        flex.attention(score_mod=alibi, heads=(HQ, HKV), head_dim=D, dtype="f32",
                       cache_dir=cache, name="alibi", compiler=False)
    except attnc.Error as e:
        print(f"not cached: {e}")
    print(again.mlir)


def check_errors():
    wide = torch.Tensor("f64", (NK,), [0.0] * NK)
    bad = {
        "branch": lambda b, h, q, k: True if q > k else False,
        "integer mask": lambda b, h, q, k: q - k,
        "list": lambda b, h, q, k: q < [1, 2, 3],
        "float logic": lambda b, h, q, k: (q * 0.5) & (k > 0),
        "slice": lambda b, h, q, k: IDS[b, :] == 1,
        "too few indices": lambda b, h, q, k: IDS[q] == 1,
        "list index": lambda b, h, q, k: IDS[b, [q, k]] == 1,
        "tensor index": lambda b, h, q, k: IDS[b, IDS] == 1,
        "float index": lambda b, h, q, k: IDS[b, q * 0.5] == 1,
        "negative index": lambda b, h, q, k: IDS[-1, q] == 1,
        "f64 tensor": lambda b, h, q, k: wide[k] > 0,
        "whole tensor": lambda b, h, q, k: q < IDS,
        "list indexed": lambda b, h, q, k: [True, False][q],
    }
    for what, fn in bad.items():
        try:
            flex.trace_mask(fn)
            print(f"{what}: traced")
        except flex.TraceError as e:
            print(f"{what}: {e}")
    # A bf16 table is read as f32.
    table = torch.Tensor("bf16", (HQ,), [0.5] * HQ)
    print(flex.trace_score(lambda s, b, h, q, k: s * table[h]))


def main():
    seed = reference.seed_from_argv(3)
    with attnc.Runtime("host") as rt, rt.load(sys.argv[1]) as handwritten:
        rng = random.Random(seed)
        ok, ops = compare(handwritten, sys.argv[2], rng)
        ok &= check_captures(handwritten, sys.argv[2], rng)
    check_op_names(sys.argv[2], ops)
    check_cache(sys.argv[2])
    check_errors()
    sys.exit(0 if ok else 1)


main()
