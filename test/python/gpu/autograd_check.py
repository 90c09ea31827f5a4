#!/usr/bin/env python3
"""PyTorch autograd through an attnc package on a GPU: gradients of
loss = (out * w).sum() through attnc.autograd_function, against an fp64
PyTorch reference and beside SDPA's.

Compile the model (on a machine with attnc and a CUDA toolkit), then run
here with the Python that has PyTorch:

  attnc test/python/gpu/autograd_model.mlir --target=sm_90a -o autograd_model.attnpkg
  python3 test/python/gpu/autograd_check.py autograd_model.attnpkg \
      gpu-bundle/lib/libattnrt.so [--device cuda:0] [--no-compile]

(`--device host` runs the same checks on the CPU, with a package compiled
for the host and a libattnrt of any build.)

For each function of the model (f32 and bf16, causal and not, grouped-query
heads) and a few shapes: q, k, v on the GPU with requires_grad, loss
backward through attnc, then ||g - ref|| / ||ref|| of q.grad, k.grad and
v.grad against float64 autograd through plain math attention (same mask,
GQA by repeat_interleave) on the same values; SDPA's gradients (on the same
inputs) are printed beside them. Tolerances: f32 1e-5, bf16 2e-2. Also
checks that a loss through lse is refused, and (unless --no-compile) that a
torch.compile'd call gives the eager gradients. Then the forward-only
function (no gradient function: a torch op without an autograd formula):
attnc.torch_call against the fp64 reference and, unless --no-compile,
inside torch.compile(fullgraph=True, dynamic=True) on two shapes against
eager, with the traced graph checked to be one graph that calls the op.
Exit status 1 on any failure.
"""

import argparse
import math
import os
import sys

import torch
import torch.nn.functional as F

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
TOLERANCES = {torch.float32: 1e-5, torch.bfloat16: 2e-2}

# function: (dtype, q heads, k/v heads, head dim, causal), as in
# autograd_model.mlir.
FUNCTIONS = {
    "f32_plain": (torch.float32, 4, 4, 64, False),
    "f32_causal_gqa": (torch.float32, 8, 2, 64, True),
    "bf16_plain": (torch.bfloat16, 4, 4, 128, False),
    "bf16_causal": (torch.bfloat16, 4, 4, 128, True),
    "bf16_gqa": (torch.bfloat16, 8, 2, 64, False),
    "bf16_causal_gqa": (torch.bfloat16, 8, 2, 64, True),
}
# (batch, sequence length): a tile multiple, a ragged length, a short one.
SHAPES = ((2, 256), (1, 333), (3, 64))


def reference_attention(q, k, v, causal):
    """Plain math attention in the inputs' dtype: softmax(q k^T / sqrt(D))
    v, key/value heads repeated for grouped queries, causal top-left."""
    group = q.shape[1] // k.shape[1]
    k, v = (t.repeat_interleave(group, dim=1) for t in (k, v))
    scores = (q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
    if causal:
        n_q, n_k = q.shape[2], k.shape[2]
        allowed = torch.ones(n_q, n_k, dtype=torch.bool,
                             device=q.device).tril()
        scores = scores.masked_fill(~allowed, -math.inf)
    return torch.softmax(scores, dim=-1) @ v


def leaves(tensors, dtype=None):
    """Fresh leaves with the values of `tensors` (cast to `dtype`)."""
    return [t.detach().to(dtype or t.dtype).requires_grad_() for t in tensors]


def gradients(attend, inputs, w):
    """q.grad, k.grad, v.grad of (attend(q, k, v) * w).sum()."""
    (attend(*inputs) * w).sum().backward()
    return [t.grad for t in inputs]


def rel_err(got, ref):
    return ((got.double() - ref).norm() / ref.norm()).item()  # NaN stays NaN


def sdpa(causal):
    def attend(q, k, v):
        return F.scaled_dot_product_attention(
            q, k, v, is_causal=causal, enable_gqa=k.shape[1] != q.shape[1])
    return attend


def torch_device(device):
    """The torch device of an attnc runtime device ("host" or "cuda:N")."""
    return torch.device("cpu" if device == "host" else device)


def check_case(f, name, b, n, generator):
    """Gradients of one function on one shape; prints them, returns ok."""
    dtype, hq, hkv, d, causal = FUNCTIONS[name]
    device = torch_device(f.plan.device)
    shapes = ((b, hq, n, d), (b, hkv, n, d), (b, hkv, n, d))
    values = [torch.randn(s, dtype=dtype, device=device, generator=generator)
              for s in shapes]
    # w stored [B, N, H, D]: the cotangent autograd passes is not contiguous.
    w = torch.randn((b, n, hq, d), dtype=dtype, device=device,
                    generator=generator).transpose(1, 2)
    got = gradients(lambda *qkv: f(*qkv)[0], leaves(values), w)
    ref = gradients(lambda *qkv: reference_attention(*qkv, causal),
                    leaves(values, torch.float64), w.double())
    try:
        peer = gradients(sdpa(causal), leaves(values), w)
    except Exception as e:  # noqa: BLE001 - a peer's failure is only noted
        peer = None
        print(f"  sdpa: {type(e).__name__}: {str(e).splitlines()[0]}")
    tol = TOLERANCES[dtype]
    ok = True
    parts = []
    for label, g, r, p in zip(("dq", "dk", "dv"), got, ref,
                              peer or (None,) * 3):
        err = rel_err(g, r)
        ok &= err <= tol  # NaN fails
        sdpa_err = f" (sdpa {rel_err(p, r):.2g})" if p is not None else ""
        parts.append(f"{label} {err:.2g}{sdpa_err}")
    print(f"{name} B{b} N{n}: " + ", ".join(parts)
          + f" [tol {tol:g}] {'PASS' if ok else 'FAIL'}", flush=True)
    return ok


def check_lse_refused(f, device):
    """A loss through lse must raise attnc.Error, not drop its gradient."""
    import attnc
    q, k, v = leaves([torch.randn(1, 4, 64, 64, device=device)
                      for _ in range(3)])
    out, lse = f(q, k, v)
    try:
        (out.sum() + lse.sum()).backward()
    except attnc.Error as e:
        print(f"loss through lse refused: {e}")
        return True
    print("loss through lse: no error FAIL")
    return False


def check_compiled(f, generator, device):
    """torch.compile'd (fullgraph) forward and backward against eager."""
    name = "bf16_causal_gqa"
    dtype, hq, hkv, d, _ = FUNCTIONS[name]
    values = [torch.randn(s, dtype=dtype, device=device, generator=generator)
              for s in ((2, hq, 200, d), (2, hkv, 200, d), (2, hkv, 200, d))]
    w = torch.randn(2, hq, 200, d, dtype=dtype, device=device,
                    generator=generator)
    compiled = torch.compile(lambda *qkv: f(*qkv)[0] * 2, fullgraph=True)
    eager = gradients(lambda *qkv: f(*qkv)[0] * 2, leaves(values), w)
    traced = gradients(compiled, leaves(values), w)
    errs = [rel_err(t, e.double()) for t, e in zip(traced, eager)]
    ok = all(err <= TOLERANCES[dtype] for err in errs)
    print(f"torch.compile {name}: dq/dk/dv against eager "
          + ", ".join(f"{e:.2g}" for e in errs)
          + f" {'PASS' if ok else 'FAIL'}", flush=True)
    return ok


def graph_recorder():
    """A torch.compile backend that keeps each FX graph it is given (a
    graph break would give several) and runs it as it is."""
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward
    return graphs, backend


def check_forward_only(package, generator, device, compile_too):
    """bf16_causal_gqa_fwd_only through attnc.torch_call: eager against the
    fp64 reference; compiled (fullgraph, dynamic shapes) against eager."""
    import attnc
    name = "bf16_causal_gqa_fwd_only"
    dtype, hq, hkv, d, causal = FUNCTIONS["bf16_causal_gqa"]
    fn = package.function(name)
    op = attnc.torch_op(package, name)

    def inputs(b, n):
        return [torch.randn(s, dtype=dtype, device=device, generator=generator)
                for s in ((b, hq, n, d), (b, hkv, n, d), (b, hkv, n, d))]

    values = inputs(2, 200)
    out, _ = attnc.torch_call(fn, *values)
    err = rel_err(out, reference_attention(
        *(t.double() for t in values), causal))
    ok = err <= TOLERANCES[dtype] and not op.differentiable
    print(f"{name}: {op!r} as {op.name}, out against fp64 {err:.2g} "
          f"{'PASS' if ok else 'FAIL'}", flush=True)
    if not compile_too:
        return ok

    def model(q, k, v):
        out, lse = attnc.torch_call(fn, q, k, v)
        return out * 2, lse.exp()

    graphs, backend = graph_recorder()
    traced = torch.compile(model, backend=backend, fullgraph=True,
                           dynamic=True)
    compiled = torch.compile(model, fullgraph=True, dynamic=True)
    # Extents that equal no other extent: torch.compile gives equal extents
    # one symbol (duck sizing), so B = 2 = Hkv would recompile for B = 3;
    # and 0 and 1 would specialize.
    for b, n in ((3, 200), (5, 333)):
        values = inputs(b, n)
        eager = model(*values)
        for label, run in (("graph", traced), ("inductor", compiled)):
            errs = [rel_err(got, ref.double())
                    for got, ref in zip(run(*values), eager)]
            good = all(e <= 1e-6 for e in errs)
            ok &= good
            print(f"torch.compile {name} ({label}) B{b} N{n}: out, lse "
                  f"against eager {errs[0]:.2g}, {errs[1]:.2g} "
                  f"{'PASS' if good else 'FAIL'}", flush=True)
    calls = [g for g in graphs if op.name.split("::")[1] in g.code]
    good = len(graphs) == 1 and len(calls) == 1
    ok &= good
    print(f"torch.compile {name}: {len(graphs)} graph(s) for both shapes, "
          f"calling {op.name}: {bool(calls)} {'PASS' if good else 'FAIL'}",
          flush=True)
    return ok


def guarded(label, check, *args):
    """check(*args), with an exception reported as that check's failure."""
    try:
        return check(*args)
    except Exception as e:  # noqa: BLE001 - the other checks still run
        print(f"{label}: {type(e).__name__}: {e} FAIL", flush=True)
        return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("package", help="autograd_model.mlir compiled for sm_90a")
    parser.add_argument("runtime_library", help="libattnrt.so with the cuda device")
    parser.add_argument("--device", default="cuda:0",
                        help="the attnc runtime device: cuda:N or host")
    parser.add_argument("--no-compile", action="store_true",
                        help="skip the torch.compile check")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    os.environ["ATTNC_RUNTIME_LIBRARY"] = args.runtime_library
    sys.path.insert(0, os.path.join(REPO, "python"))
    import attnc

    torch.backends.cuda.matmul.allow_tf32 = False  # an exact f32 SDPA peer
    device = torch_device(args.device)
    if device.type == "cuda":
        torch.cuda.set_device(device)
    generator = torch.Generator(device=device).manual_seed(args.seed)
    print(f"torch {torch.__version__}, "
          f"{torch.cuda.get_device_name() if device.type == 'cuda' else 'cpu'}"
          f", seed {args.seed}")
    runtime = attnc.Runtime(args.device)
    package = runtime.load(args.package)
    functions = {name: attnc.autograd_function(package, name)
                 for name in FUNCTIONS}
    checks = [(f"{name} B{b} N{n}", check_case, functions[name], name, b, n,
               generator) for name in FUNCTIONS for b, n in SHAPES]
    checks.append(("lse", check_lse_refused, functions["f32_plain"], device))
    if not args.no_compile:
        checks.append(("torch.compile", check_compiled,
                       functions["bf16_causal_gqa"], generator, device))
    checks.append(("forward only", check_forward_only, package, generator,
                   device, not args.no_compile))
    ok = True
    for label, check, *check_args in checks:
        ok &= guarded(label, check, *check_args)
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
