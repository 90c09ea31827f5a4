"""Calls the f32 function of model.mlir on the host through attnc.Tensor
descriptors over Python buffers (array.array, ctypes arrays, raw addresses),
contiguous and strided, and compares with the fp64 reference.

usage: call_host.py PACKAGE [SEED]"""

import array
import ctypes
import math
import random
import sys

import attnc
import reference

B, HQ, HKV, NQ, NK, D = 2, 4, 2, 5, 7, 16
Q_SHAPE, KV_SHAPE = (B, HQ, NQ, D), (B, HKV, NK, D)
OUT_SHAPE, LSE_SHAPE = (B, HQ, NQ, D), (B, HQ, NQ)


def floats(values):
    return array.array("f", values)


def poisoned(count):
    return array.array("f", [math.nan] * count)


def main():
    rng = random.Random(reference.seed_from_argv(2))
    q = [reference.f32(x) for x in reference.random_values(rng, B * HQ * NQ * D)]
    k = [reference.f32(x) for x in reference.random_values(rng, B * HKV * NK * D)]
    v = [reference.f32(x) for x in reference.random_values(rng, B * HKV * NK * D)]
    ref_out, ref_lse = reference.attention(q, k, v, B, HQ, HKV, NQ, NK, D,
                                           causal=True)
    ok = True

    with attnc.Runtime("host") as rt, rt.load(sys.argv[1]) as pkg, \
            pkg.function("attention_fwd") as fn:
        # Contiguous array.array buffers; v through a raw address of a ctypes
        # array (the descriptor does not keep it alive: `v_c` does).
        out, lse = poisoned(len(ref_out)), poisoned(len(ref_lse))
        v_c = (ctypes.c_float * len(v))(*v)
        T = attnc.Tensor.from_buffer
        result = fn(T(floats(q), "f32", Q_SHAPE),
                    T(floats(k), "float32", KV_SHAPE),
                    attnc.Tensor(ctypes.addressof(v_c), "f32", KV_SHAPE),
                    out=(T(out, "f32", OUT_SHAPE), T(lse, "f32", LSE_SHAPE)))
        print(f"returns out: {[type(t).__name__ for t in result]}")
        ok &= reference.report("contiguous out", out, ref_out, 1e-5)
        ok &= reference.report("contiguous lse", lse, ref_lse, 1e-5)

        # [B, N, H, D] storage (heads interleaved, as in most frameworks) with
        # explicit strides, for q, k, v and out; lse stays contiguous.
        q_s, q_strides = reference.permute(q, Q_SHAPE, (0, 2, 1, 3))
        k_s, kv_strides = reference.permute(k, KV_SHAPE, (0, 2, 1, 3))
        v_s, _ = reference.permute(v, KV_SHAPE, (0, 2, 1, 3))
        out_s, lse = poisoned(len(ref_out)), poisoned(len(ref_lse))
        fn.call([T(floats(q_s), "f32", Q_SHAPE, q_strides),
                 T(floats(k_s), "f32", KV_SHAPE, kv_strides),
                 T(floats(v_s), "f32", KV_SHAPE, kv_strides)],
                [T(out_s, "f32", OUT_SHAPE, q_strides),
                 T(lse, "f32", LSE_SHAPE)])
        print(f"strides q: {q_strides}")
        ok &= reference.report("strided out", reference.gather(
            out_s, OUT_SHAPE, q_strides), ref_out, 1e-5)
        ok &= reference.report("strided lse", lse, ref_lse, 1e-5)

        # Empty queries: null data is fine when nothing is addressed.
        fn.call([attnc.Tensor(0, "f32", (B, HQ, 0, D)),
                 T(floats(k), "f32", KV_SHAPE), T(floats(v), "f32", KV_SHAPE)],
                [attnc.Tensor(None, "f32", (B, HQ, 0, D)),
                 attnc.Tensor(0, "f32", (B, HQ, 0))])
        print("empty queries: ok")
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
