#!/usr/bin/env python3
"""attnc.flex against torch's flex_attention on a GPU, with the same Python
mask and score functions (flex_mods.py): outputs against an fp32 math
reference, and times of both. The capture cases (flex_mods.capture_cases)
read CUDA tensors that attnc captures and torch's functions close over:
both read the same tensors.

  python3 test/python/gpu/flex_mods.py CACHE sm_90a     # where attnc is
  python3 test/python/gpu/flex_check.py CACHE           # on the GPU machine

The GPU machine needs no compiler: attnc.flex takes the packages from the
cache (compiler=False). Then each attnc callable (a torch custom op) inside
torch.compile(fullgraph=True): one graph that calls the op, and the same
outputs as eager. Exit status 1 if an error exceeds 2e-2, or on a graph
break or a compiled result that differs from eager."""

import os
import sys

import torch
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flex_mods  # noqa: E402
from attnc import flex  # noqa: E402

B, N = 2, 4096


def reference(q, k, v, mask_mod, score_mod):
    hq, hkv = flex_mods.HEADS
    k = k.float().repeat_interleave(hq // hkv, dim=1)
    v = v.float().repeat_interleave(hq // hkv, dim=1)
    s = q.float() @ k.transpose(-1, -2) / flex_mods.HEAD_DIM ** 0.5
    idx = torch.arange(N, device=q.device)
    b = torch.arange(B, device=q.device)[:, None, None, None]
    h = torch.arange(hq, device=q.device)[None, :, None, None]
    qi, ki = idx[None, None, :, None], idx[None, None, None, :]
    if score_mod is not None:
        s = score_mod(s, b, h, qi, ki)
    if mask_mod is not None:
        s = s.masked_fill(~mask_mod(b, h, qi, ki), float("-inf"))
    return torch.softmax(s, dim=-1) @ v


def timed(fn, iters=20):
    for _ in range(3):
        fn()
    start, end = torch.cuda.Event(True), torch.cuda.Event(True)
    start.record()
    for _ in range(iters):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / iters


def check_compiled(name, attention, q, k, v):
    """attention inside torch.compile(fullgraph=True), between torch ops:
    one graph calling attention.op (a recording backend), and inductor's
    result against eager."""
    torch._dynamo.reset()  # a fresh cache: one model per attention

    def model(q, k, v):
        out, lse = attention(q * 1, k, v)
        return out.float().sum(dim=-1) + lse

    graphs = []

    def record(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    eager = model(q, k, v)
    traced = torch.compile(model, backend=record, fullgraph=True)(q, k, v)
    compiled = torch.compile(model, fullgraph=True)(q, k, v)
    errors = [((got - eager).norm() / eager.norm()).item()
              for got in (traced, compiled)]
    op = attention.op.name
    ok = (len(graphs) == 1 and op.split("::")[1] in graphs[0].code
          and all(e <= 1e-6 for e in errors))
    print(f"torch.compile(fullgraph) {name}: {len(graphs)} graph calling "
          f"{op}, against eager {errors[0]:.2g} (graph), {errors[1]:.2g} "
          f"(inductor) {'PASS' if ok else 'FAIL'}")
    return ok


def main():
    cache = sys.argv[1]
    torch.manual_seed(0)
    hq, hkv = flex_mods.HEADS
    d = flex_mods.HEAD_DIM
    q = torch.randn(B, hq, N, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(B, hkv, N, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(B, hkv, N, d, device="cuda", dtype=torch.bfloat16)
    compiled_flex = torch.compile(flex_attention)
    ok = True
    attentions = {}
    print(f"B{B} Hq{hq} Hkv{hkv} N{N} D{d} bf16; ms (median of 20) and "
          "rel_err against fp32 math")
    print("| case | attnc ms | flex ms | attnc err | flex err |")
    print("|---|---|---|---|---|")
    cases = {**flex_mods.CASES, **flex_mods.capture_cases(B, N, "cuda")}
    for name, (mask_mod, score_mod) in cases.items():
        attention = flex.attention(mask_mod, score_mod, heads=flex_mods.HEADS,
                                   head_dim=d, dtype="bf16", target="sm_90a",
                                   device="cuda:0", cache_dir=cache,
                                   compiler=False, name=name)
        attentions[name] = attention
        block_mask = (create_block_mask(mask_mod, B, hq, N, N)
                      if mask_mod is not None else None)
        run_flex = lambda: compiled_flex(q, k, v, score_mod=score_mod,
                                         block_mask=block_mask,
                                         enable_gqa=True)
        ref = reference(q, k, v, mask_mod, score_mod)
        errors = []
        for out in (attention(q, k, v)[0], run_flex()):
            errors.append(((out.float() - ref).norm() / ref.norm()).item())
        ok &= all(e <= 2e-2 for e in errors)
        print(f"| {name} | {timed(lambda: attention(q, k, v)):.3f} | "
              f"{timed(run_flex):.3f} | {errors[0]:.4f} | {errors[1]:.4f} |")
    for name, attention in attentions.items():
        ok &= check_compiled(name, attention, q, k, v)
    sys.exit(0 if ok else 1)


main()
