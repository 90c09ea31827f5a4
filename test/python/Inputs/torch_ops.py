"""attnc.torch_ops on the host against the stand-in torch
(Inputs/fake_torch): any package function as a torch custom op. A
forward-only function becomes an op without an autograd formula, whose
fake implementation gives the signature's dtypes and the shapes the inputs
bind (symbolic extents too); torch_op, torch_call and autograd_function
share one op per package function; op names are valid, the same for every
copy and load of a package (and in every process: `names` mode prints them
for the test to compare), and distinct for two packages or functions.

usage: torch_ops.py AUTOGRAD_PACKAGE COPY_OF_IT OTHER_PACKAGE [SEED]
       torch_ops.py names PACKAGE"""

import os
import random
import re
import subprocess
import sys

import attnc
import reference

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "fake_torch"))
import torch  # noqa: E402  (the stand-in)

NAME = re.compile(r"attnc::[A-Za-z][A-Za-z0-9_]*_[0-9a-f]{16}")


def random_tensor(rng, dtype, shape):
    count = 1
    for n in shape:
        count *= n
    return torch.Tensor(dtype, shape, reference.random_values(rng, count))


def names(path):
    """The op name of each function of the package at `path`."""
    with attnc.Runtime("host") as rt, rt.load(path) as pkg:
        for name in pkg.functions:
            print(f"{name}: {attnc.torch_op(pkg, name).name}")


def forward_only(pkg, rng):
    """fwd_only: an op without autograd, called directly and through
    torch_call, against the reference; its fake implementation."""
    op = attnc.torch_op(pkg, "fwd_only")
    print(f"{op!r}: differentiable {op.differentiable}, valid name "
          f"{bool(NAME.fullmatch(op.name))}, autograd registered "
          f"{op.forward_op.backward is not None}, backward op "
          f"{op.backward_op}")
    print(f"schema: {op.forward_op.schema}")
    dims = (2, 2, 2, 5, 7, 16)  # b, hq, hkv, nq, nk, d
    q = random_tensor(rng, "f32", (2, 2, 5, 16))
    k = random_tensor(rng, "f32", (2, 2, 7, 16))
    v = random_tensor(rng, "f32", (2, 2, 7, 16))
    ref_out, ref_lse = reference.attention(q.tolist(), k.tolist(),
                                           v.tolist(), *dims, False)
    fn = pkg.function("fwd_only")
    print(f"op made by Package.function (torch imported): "
          f"{fn._torch_op is not None and fn._torch_op.name == op.name}")
    ok = True
    for how, call in (("op", lambda: op(q, k, v)),
                      ("torch_call", lambda: attnc.torch_call(fn, q, k, v))):
        before = len(op.forward_op.calls)
        out, lse = call()
        print(f"{how}: out {out.dtype} {out.shape}, lse {lse.dtype} "
              f"{lse.shape}, through the op: "
              f"{len(op.forward_op.calls) == before + 1}")
        ok &= reference.report(f"fwd_only {how} out", out.tolist(), ref_out,
                               1e-5)
        ok &= reference.report(f"fwd_only {how} lse", lse.tolist(), ref_lse,
                               1e-5)

    # torch imported after Package.function: no op yet, and torch.compile
    # cannot make one; a first call outside it does.
    saved = sys.modules.pop("torch")
    late = pkg.function("fwd_only")
    sys.modules["torch"] = saved
    torch.compiler.compiling = True
    reference.expect_error("first call under torch.compile",
                 lambda: attnc.torch_call(late, q, k, v))
    torch.compiler.compiling = False
    before = len(op.forward_op.calls)
    attnc.torch_call(late, q, k, v)
    print(f"first call outside torch.compile: made the same op "
          f"{late._torch_op.name == op.name}, called it "
          f"{len(op.forward_op.calls) == before + 1}")

    # As torch.compile traces with dynamic shapes: B, Nq, Nk symbolic.
    b, nq, nk = torch.SymInt("s0"), torch.SymInt("s1"), torch.SymInt("s2")
    fakes = [torch.FakeTensor("f32", shape) for shape in
             ((b, 2, nq, 16), (b, 2, nk, 16), (b, 2, nk, 16))]
    outputs = op.forward_op.fake(*fakes)
    print(f"fake fwd_only: {[(t.dtype, t.shape) for t in outputs]}, "
          f"data-less {all(type(t) is torch.FakeTensor for t in outputs)}")
    reference.expect_error("fake rank", lambda: op.forward_op.fake(
        torch.FakeTensor("f32", (b, 2, nq)), *fakes[1:]))
    reference.expect_error("fake dtype", lambda: op.forward_op.fake(
        fakes[0], torch.FakeTensor("f64", (b, 2, nk, 16)), fakes[2]))
    cuda = torch.FakeTensor("f32", (b, 2, nq, 16), torch.Device("cuda", 0))
    reference.expect_error("fake device", lambda: op.forward_op.fake(cuda, *fakes[1:]))
    return ok


def names_elsewhere(path):
    """names(path), printed by another process: {function: op name}."""
    done = subprocess.run([sys.executable, __file__, "names", path],
                          capture_output=True, text=True, check=True)
    return dict(line.split(": ") for line in done.stdout.splitlines())


def sharing(pkg, copy, other_path):
    """One op per package function, whatever makes it; names stable across
    copies, loads and processes, distinct across packages and functions.
    (The other package is loaded by another process: libattnrt can mix up
    the host code of two packages loaded at once.)"""
    gqa = attnc.torch_op(pkg, "gqa")
    print(f"{gqa!r}: differentiable {gqa.differentiable}, autograd "
          f"registered {gqa.forward_op.backward is not None}")
    same = [attnc.autograd_function(pkg, "gqa").forward_op,
            attnc.torch_ops.function_op(pkg.function("gqa")).forward_op,
            attnc.torch_op(copy, "gqa").forward_op]
    print(f"gqa: autograd_function, torch_call and a copy of the package "
          f"share its op: {all(op is gqa.forward_op for op in same)}")
    print(f"gqa_bwd's own op is gqa's backward op: "
          f"{attnc.torch_op(pkg, 'gqa_bwd').forward_op is gqa.backward_op}")
    print(f"copy: identity equal {copy.identity == pkg.identity}, paths "
          f"differ {copy.path != pkg.path}")
    here = {name: attnc.torch_op(pkg, name).name for name in pkg.functions}
    print(f"another process names them alike: "
          f"{names_elsewhere(pkg.path) == here}")
    other = names_elsewhere(other_path)
    print(f"same function name, two packages: {here['bf16'] != other['bf16']}")
    print(f"same signature, two functions: "
          f"{here['fwd_only'] != here['out_only']}")
    both = list(here.values()) + list(other.values())
    print(f"{len(both)} functions, {len(set(both))} op names, valid "
          f"{all(NAME.fullmatch(n) for n in both)}")
    print(f"registered once each: "
          f"{sorted(torch.CustomOp.registered) == sorted(here.values())}")


def main():
    if sys.argv[1] == "names":
        names(sys.argv[2])
        return 0
    seed = reference.seed_from_argv(4)
    rt = attnc.Runtime("host")
    pkg, copy = rt.load(sys.argv[1]), rt.load(sys.argv[2])
    ok = forward_only(pkg, random.Random(seed))
    sharing(pkg, copy, sys.argv[3])
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
