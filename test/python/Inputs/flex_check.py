"""Traces FlexAttention-style Python masks and scores with attnc.flex,
compiles them for the host and compares each with the same function written
in MLIR (flex_masks.mlir) on the same random inputs; then that the callable
is a torch custom op (against the stand-in torch, Inputs/fake_torch) named
after its package, the package cache and the tracer's errors.

usage: flex_check.py HANDWRITTEN_PACKAGE CACHE_DIR [SEED]"""

import ctypes
import os
import random
import re
import sys

import attnc
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


CASES = {
    "documents": dict(mask_mod=documents),
    "periodic": dict(mask_mod=periodic),
    "softcap": dict(score_mod=softcap, scale=0.25),
    "alibi": dict(score_mod=alibi, causal=True),
}


def buffer(values):
    return (ctypes.c_float * len(values))(*values)


def run(fn, q, k, v):
    out = buffer([float("nan")] * (B * HQ * NQ * D))
    lse = buffer([float("nan")] * (B * HQ * NQ))
    T = lambda data, shape: attnc.Tensor(ctypes.addressof(data), "f32", shape)
    fn.call([T(q, (B, HQ, NQ, D)), T(k, (B, HKV, NK, D)), T(v, (B, HKV, NK, D))],
            [T(out, (B, HQ, NQ, D)), T(lse, (B, HQ, NQ))])
    return list(out), list(lse)


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
    ops = {}
    for name in CASES:
        traced = flex_attention(name, cache)
        expected = run(handwritten.function(name), q, k, v)
        got = run(traced.function, q, k, v)
        # Rows with no visible key have lse -inf in both.
        diff = max(abs(a - b) if a != b else 0.0
                   for a, b in zip(expected[0] + expected[1], got[0] + got[1]))
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


def check_op_names(cache, ops):
    """The op of a flex callable is named after its package: the same
    attention made again (from the cache) has the same op, another mask
    under the same function name another one."""
    again = flex_attention("documents", cache)
    print(f"op names: valid "
          f"{all(re.fullmatch(r'attnc::[a-z]+_[0-9a-f]{16}', n) for n in ops.values())}"
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
    bad = {
        "branch": lambda b, h, q, k: True if q > k else False,
        "integer mask": lambda b, h, q, k: q - k,
        "tensor": lambda b, h, q, k: q < [1, 2, 3],
        "float logic": lambda b, h, q, k: (q * 0.5) & (k > 0),
    }
    for what, fn in bad.items():
        try:
            flex.trace_mask(fn)
            print(f"{what}: traced")
        except flex.TraceError as e:
            print(f"{what}: {e}")


def main():
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else random.randrange(2**32)
    print(f"seed: {seed}")
    with attnc.Runtime("host") as rt, rt.load(sys.argv[1]) as handwritten:
        ok, ops = compare(handwritten, sys.argv[2], random.Random(seed))
    check_op_names(sys.argv[2], ops)
    check_cache(sys.argv[2])
    check_errors()
    sys.exit(0 if ok else 1)


main()
