"""Runs attention_fwd of a causal and of a non-causal package, each alone
and then both loaded at once, against the fp64 reference.

usage: two_packages.py CAUSAL_PACKAGE FULL_PACKAGE [SEED]"""

import os
import random
import sys

import attnc
import reference

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "fake_torch"))
import torch  # noqa: E402  (the stand-in)

DIMS = (1, 4, 2, 9, 11, 16)  # b, hq, hkv, nq, nk, d


def check(label, fn, inputs, causal):
    out, _ = attnc.torch_call(fn, *inputs)
    ref_out, _ = reference.attention(*(t.tolist() for t in inputs), *DIMS,
                                     causal)
    return reference.report(f"{label} out", out.tolist(), ref_out, 1e-5)


def main():
    causal_path, full_path = sys.argv[1], sys.argv[2]
    rng = random.Random(reference.seed_from_argv(3))
    b, hq, hkv, nq, nk, d = DIMS
    inputs = [torch.Tensor(torch.float32, s,
                           reference.random_values(rng, s[0] * s[1] * s[2] * d))
              for s in ((b, hq, nq, d), (b, hkv, nk, d), (b, hkv, nk, d))]
    ok = True
    for label, path, causal in (("causal", causal_path, True),
                                ("full", full_path, False)):
        with attnc.Runtime() as rt, rt.load(path) as pkg:
            ok &= check(f"{label} alone", pkg.function("attention_fwd"),
                        inputs, causal)
    with attnc.Runtime() as rt, rt.load(causal_path) as causal_pkg, \
            rt.load(full_path) as full_pkg:
        ok &= check("causal beside full", causal_pkg.function("attention_fwd"),
                    inputs, True)
        ok &= check("full beside causal", full_pkg.function("attention_fwd"),
                    inputs, False)
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
