"""The binding's view of a package (functions, manifest, signatures, output
shapes), handle lifetimes, and attnc.torch_call against a stand-in torch.

usage: api.py PACKAGE [SEED]"""

import os
import random
import sys

import attnc
import reference

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "fake_torch"))
import torch  # noqa: E402  (the stand-in)


def show(fn):
    print(f"function {fn.name}:")
    for role, specs in (("in", fn.signature.inputs),
                        ("out", fn.signature.outputs)):
        for spec in specs:
            print(f"  {role} {spec.name} {spec.dtype} {list(spec.shape)}")


def torch_inputs(rng, dtype, b, hq, hkv, nq, nk, d):
    """Random stand-in torch tensors q, k, v."""
    shapes = ((b, hq, nq, d), (b, hkv, nk, d), (b, hkv, nk, d))
    return [torch.Tensor(dtype, s, reference.random_values(rng, b * s[1] * s[2] * d))
            for s in shapes]


def main():
    path = sys.argv[1]
    rng = random.Random(reference.seed_from_argv(2))

    with attnc.Runtime() as rt:
        print(repr(rt))
        with rt.load(path) as pkg:
            print(f"functions: {list(pkg.functions)}")
            manifest = pkg.manifest
            print(f"schema_version: {manifest['schema_version']}")
            print(f"producer: {manifest['producer']}")
            targets = [k["target"] for f in manifest["functions"]
                       for k in f["kernels"]]
            print(f"targets: {targets}")
            fn = pkg.function("attention_fwd")
            fn_bf16 = pkg.function("bf16")
        print(f"package closed: {pkg!r}")
    show(fn)
    show(fn_bf16)
    shapes = fn.output_shapes([(2, 4, 5, 16), (2, 2, 7, 16), (2, 2, 7, 16)])
    print(f"output shapes: {shapes}")
    try:
        fn.output_shapes([(2, 4, 5, 16)])
    except attnc.Error as e:
        print(f"output shapes error: {e}")

    # The functions outlive their package and runtime; torch_call allocates
    # the outputs (the stand-in torch.empty) and returns them in order.
    ok = True
    for f, dtype, dims, causal, tol in (
            (fn, torch.float32, (2, 4, 2, 5, 7, 16), True, 1e-5),
            (fn_bf16, torch.bfloat16, (1, 2, 2, 6, 6, 32), False, 2e-2)):
        inputs = torch_inputs(rng, dtype, *dims)
        out, lse = attnc.torch_call(f, *inputs)
        print(f"torch_call {f.name}: out {out.dtype} {out.shape}, "
              f"lse {lse.dtype} {lse.shape}, "
              f"inputs detached: {all(t.detached for t in inputs)}")
        ref_out, ref_lse = reference.attention(
            *(t.tolist() for t in inputs), *dims, causal)
        ok &= reference.report(f"{f.name} out", out.tolist(), ref_out, tol)
        ok &= reference.report(f"{f.name} lse", lse.tolist(), ref_lse, 1e-5)

    # profile runs the last call again, timing each step of its program.
    steps = f.profile(inputs, (out, lse))
    print(f"profile {f.name}: {[name for name, _ in steps]}, times "
          f"non-negative: {all(ms >= 0 for _, ms in steps)}")
    ok &= reference.report(f"{f.name} out", out.tolist(), ref_out, tol)

    fn.close()
    fn.close()  # closing twice is harmless
    print(f"closed: {fn!r}")
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
