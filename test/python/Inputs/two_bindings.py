"""Two copies of the attnc binding in one process (a bench script's
baseline build beside the current one) each make torch ops for the same
package: torch has one op registry per process, so the copy imported under
another name names its ops apart, and each copy's op runs its own runtime.

usage: two_bindings.py PACKAGE [SEED]"""

import importlib.util
import math
import os
import random
import sys

import attnc
import reference

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "fake_torch"))
import torch  # noqa: E402  (the stand-in)


def load_copy(name):
    """The binding's files imported again as module `name`."""
    folder = os.path.dirname(attnc.__file__)
    spec = importlib.util.spec_from_file_location(
        name, os.path.join(folder, "__init__.py"),
        submodule_search_locations=[folder])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def main():
    path = sys.argv[1]
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else random.randrange(2**31)
    print(f"seed: {seed}")
    rng = random.Random(seed)
    copy = load_copy("attnc_baseline")
    q, k, v = (torch.Tensor("f32", shape,
                            reference.random_values(rng, math.prod(shape)))
               for shape in ((2, 2, 5, 16), (2, 2, 7, 16), (2, 2, 7, 16)))
    ref_out, _ = reference.attention(q.tolist(), k.tolist(), v.tolist(),
                                     2, 2, 2, 5, 7, 16, False)
    ok = True
    with attnc.Runtime("host") as rt, rt.load(path) as pkg, \
            copy.Runtime("host") as copy_rt, copy_rt.load(path) as copy_pkg:
        op = attnc.torch_op(pkg, "fwd_only")
        copy_op = copy.torch_op(copy_pkg, "fwd_only")
        print(f"names distinct: {op.name != copy_op.name}")
        for label, made in (("attnc", op), ("attnc_baseline", copy_op)):
            out, _ = made(q, k, v)
            ok &= reference.report(f"{label} out", out.tolist(), ref_out,
                                   1e-5)
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
