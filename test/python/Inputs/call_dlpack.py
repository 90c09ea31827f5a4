"""Calls model.mlir's functions on the host through the DLPack protocol, with
the pure-Python producer of dlpack_producer.py: f32 and bf16, legacy and
versioned capsules, strides and byte offsets, DLPack mixed with
attnc.Tensor; checks against the fp64 reference and that every capsule was
borrowed, not consumed (the producer's deleter ran once per export).

usage: call_dlpack.py PACKAGE [SEED]"""

import math
import random
import sys

import attnc
import reference
from dlpack_producer import HostArray

F32 = dict(b=2, hq=4, hkv=2, nq=6, nk=9, d=16, causal=True)
BF16 = dict(b=1, hq=2, hkv=2, nq=8, nk=8, d=32, causal=False)


def problem(rng, dtype, b, hq, hkv, nq, nk, d, causal, **array_options):
    """Random inputs, poisoned outputs (HostArrays) and the reference."""
    q = HostArray(dtype, (b, hq, nq, d),
                  reference.random_values(rng, b * hq * nq * d), **array_options)
    k, v = (HostArray(dtype, (b, hkv, nk, d),
                      reference.random_values(rng, b * hkv * nk * d),
                      **array_options) for _ in range(2))
    out = HostArray(dtype, (b, hq, nq, d), **array_options)
    lse = HostArray("f32", (b, hq, nq))
    ref = reference.attention(q.tolist(), k.tolist(), v.tolist(), b, hq, hkv,
                              nq, nk, d, causal)
    return [q, k, v], [out, lse], ref


def check(label, outputs, ref, out_tol):
    ok = reference.report(f"{label} out", outputs[0].tolist(), ref[0], out_tol)
    return ok & reference.report(f"{label} lse", outputs[1].tolist(), ref[1],
                                 1e-5)


def borrowed(label, arrays):
    """Every export of `arrays` was released and freed by its producer."""
    live = sum(a.live_exports for a in arrays)
    exported = sum(a.exported for a in arrays)
    print(f"{label}: {exported} exports, {live} live")
    return exported > 0 and live == 0


def bnhd(shape):
    """Element strides of a [B, H, N, D] tensor stored as [B, N, H, D]."""
    _, h, n, d = shape
    return (n * h * d, d, h * d, 1)


def main():
    rng = random.Random(reference.seed_from_argv(2))
    ok = True
    with attnc.Runtime("host") as rt, rt.load(sys.argv[1]) as pkg:
        fn, fn_bf16 = pkg.function("attention_fwd"), pkg.function("bf16")

        inputs, outputs, ref = problem(rng, "f32", **F32)
        fn(*inputs, out=outputs)
        ok &= check("f32", outputs, ref, 1e-5)
        ok &= borrowed("f32 capsules", inputs + outputs)
        print(f"cpu streams: {sorted(set(a.streams[0] for a in inputs))}")

        inputs, outputs, ref = problem(rng, "bf16", **BF16)
        fn_bf16(*inputs, out=outputs)
        ok &= check("bf16", outputs, ref, 2e-2)

        # The same producers again: a borrowed capsule leaves them usable.
        for a in outputs:
            a.assign([math.nan] * len(a.tolist()))
        fn_bf16.call(inputs, outputs)
        ok &= check("bf16 again", outputs, ref, 2e-2)
        ok &= borrowed("bf16 capsules", inputs + outputs)

        # DLPack >= 1.0 capsules ("dltensor_versioned").
        inputs, outputs, ref = problem(rng, "f32", **F32, versioned=True)
        fn(*inputs, out=outputs)
        ok &= check("versioned", outputs, ref, 1e-5)
        ok &= borrowed("versioned capsules", inputs + outputs)

        # Read-only inputs (DLPack 1.x only) are fine; a read-only output is
        # refused before anything runs.
        inputs, outputs, ref = problem(rng, "f32", **F32, versioned=True)
        frozen = [HostArray("f32", a.shape, a.tolist(), versioned=True,
                            readonly=True) for a in inputs]
        fn(*frozen, out=outputs)
        ok &= check("read-only inputs", outputs, ref, 1e-5)
        ok &= borrowed("read-only capsules", frozen + outputs)
        frozen_out = HostArray("f32", outputs[0].shape, versioned=True,
                               readonly=True)
        try:
            fn(*inputs, out=(frozen_out, outputs[1]))
            print("read-only output: accepted")
            ok = False
        except ValueError as e:
            print(f"read-only output: {e}")

        # Strided views with a byte offset: [B, H, N, D] stored as BNHD after
        # 3 elements of padding.
        inputs, outputs, ref = problem(rng, "f32", **F32)
        views = [HostArray("f32", a.shape, a.tolist(), strides=bnhd(a.shape),
                           offset=3) for a in inputs + outputs[:1]]
        fn(*views[:3], out=(views[3], outputs[1]))
        ok &= check("strided", [views[3], outputs[1]], ref, 1e-5)

        # DLPack inputs with attnc.Tensor outputs (attnc_tensor_from_dlpack).
        inputs, outputs, ref = problem(rng, "f32", **F32)
        fn(*inputs, out=[attnc.Tensor.from_buffer(a.buffer, a.dtype, a.shape)
                         for a in outputs])
        ok &= check("mixed", outputs, ref, 1e-5)
        ok &= borrowed("mixed capsules", inputs)
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
