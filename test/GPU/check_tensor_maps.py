"""Checks the TMA-loading kernels on inputs of other layouts (run on a GPU).

    python3 test/GPU/check_tensor_maps.py PACKAGE

PACKAGE: Inputs/schedules.mlir compiled for sm_90a. The TMA forward
functions (head dims 128 and 64), and the gradient function grads_bwd, run on three
layouts of the same values (the forward outputs too), against fp32 SDPA (and
its autograd):
- contiguous: the runtime makes tensor maps, the producer loads by TMA;
- [B, N, H, D] storage viewed as [B, H, N, D]: tensor maps of other
  strides;
- one element past a 16-byte boundary: no tensor map describes it, so the
  producer copies element by element.
Prints a line per function and layout, and exits non-zero on any mismatch.
"""

import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))

import torch  # noqa: E402

import attnc  # noqa: E402

B, H, N, D = 2, 4, 700, 128


def layouts(x):
    """`x` contiguous, heads-inner storage, and misaligned storage."""
    yield "contiguous", x
    yield "heads-inner", x.transpose(1, 2).contiguous().transpose(1, 2)
    flat = torch.empty(x.numel() + 1, device=x.device, dtype=x.dtype)
    shifted = flat[1:].view(x.shape)
    shifted.copy_(x)
    yield "misaligned", shifted


def check(fn, causal, head_dim):
    q, k, v = (torch.randn(B, H, N, head_dim, device="cuda", dtype=torch.bfloat16)
               for _ in range(3))
    ref = torch.nn.functional.scaled_dot_product_attention(
        q.float(), k.float(), v.float(), is_causal=causal,
        scale=1 / math.sqrt(head_dim))
    ok = True
    out_full = torch.empty_like(q)
    lse_full = torch.empty(B, H, N, device="cuda", dtype=torch.float32)
    for (name, ql), (_, kl), (_, vl), (_, out), (_, lse) in zip(
            layouts(q), layouts(k), layouts(v), layouts(out_full),
            layouts(lse_full)):
        # The outputs take the same layout: contiguous and heads-inner
        # outputs get a lane's two adjacent columns in one store, misaligned
        # ones element by element. The binding passes the views' own strides
        # and offsets.
        out.fill_(float("nan"))
        fn(ql, kl, vl, out=(out, lse), stream=torch.cuda.current_stream())
        torch.cuda.synchronize()
        err = ((out.float() - ref).norm() / ref.norm()).item()
        good = err <= 2e-2 and not math.isnan(err)
        print(f"{fn.name} {name}: rel_err {err:.2g} {'ok' if good else 'FAILED'}")
        ok &= good
    return ok


def check_gradients(fn):
    """grads_bwd (GQA 8:2, causal) against fp32 autograd of SDPA."""
    hq, hkv = 8, 2
    q = torch.randn(B, hq, N, D, device="cuda", dtype=torch.bfloat16)
    k, v = (torch.randn(B, hkv, N, D, device="cuda", dtype=torch.bfloat16)
            for _ in range(2))
    dout = torch.randn_like(q)
    qf, kf, vf = (x.float().requires_grad_() for x in (q, k, v))
    ref = torch.nn.functional.scaled_dot_product_attention(
        qf, kf.repeat_interleave(hq // hkv, 1), vf.repeat_interleave(hq // hkv, 1),
        is_causal=True, scale=1 / math.sqrt(D))
    ref.backward(dout.float())
    out = ref.detach().to(torch.bfloat16)
    scores = (qf.detach() @ kf.detach().repeat_interleave(hq // hkv, 1)
              .transpose(-1, -2)) / math.sqrt(D)
    scores += torch.full((N, N), float("-inf"), device="cuda").triu(1)
    lse = torch.logsumexp(scores, dim=-1)
    ok = True
    for (name, ql), (_, kl), (_, vl), (_, ol), (_, gl) in zip(
            layouts(q), layouts(k), layouts(v), layouts(out), layouts(dout)):
        grads = attnc.torch_call(fn, ql, kl, vl, ol, lse, gl,
                                 stream=torch.cuda.current_stream())
        torch.cuda.synchronize()
        for label, got, want in zip(("dq", "dk", "dv"), grads,
                                    (qf.grad, kf.grad, vf.grad)):
            err = ((got.float() - want).norm() / want.norm()).item()
            good = err <= 2e-2 and not math.isnan(err)
            print(f"{fn.name} {name} {label}: rel_err {err:.2g} "
                  f"{'ok' if good else 'FAILED'}")
            ok &= good
    return ok


def main():
    torch.manual_seed(0)
    failures = 0
    with attnc.Runtime("cuda:0") as rt:
        with rt.load(sys.argv[1]) as pkg:
            for name, causal, head_dim in (("tma", False, 128),
                                           ("ping_pong", True, 128),
                                           ("tma_ping_pong", True, 128),
                                           ("tma_hd64", True, 64)):
                failures += not check(pkg.function(name), causal, head_dim)
            failures += not check_gradients(pkg.function("grads_bwd"))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
