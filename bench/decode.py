#!/usr/bin/env python3
"""Decoding attention on one GPU: attnc against PyTorch's best kernels.

One decoding step of grouped-query attention, bf16: B sequences, a new
token each (Nq = 1) with 32 query heads, against a cache of Nk keys in 8
key/value heads of head dim 128 (bench/decode.mlir). Times on the same
tensors, in one process:

  cudnn  SDPA with the cuDNN backend, enable_gqa
  flash  SDPA with the flash backend (FlashAttention-2), enable_gqa
  flex   torch.compile'd FlexAttention, enable_gqa
  attnc  function `decode` of --package through the attnc Python binding
         (more --package options add columns named after their files, to
         compare compiler settings such as --key-ranges in one run)

Decoding reads K and V once and does little arithmetic, so the bound is
memory: each case also reports the time to read K and V at the copy
bandwidth measured in the same run (a device-to-device copy of 2 GiB,
bandwidth = bytes read and written / time), and each implementation's
time over that bound. Correctness first: every implementation's output is
compared with fp32 math attention on batch 0 (||out - ref|| / ||ref|| above
2e-2, or NaN, marks it wrong and it is not timed). Timing as
bench/attention.py does it, --rounds included; input sets rotate so L2
cannot hold the cache.

usage: python3 bench/decode.py --package FILE [--rounds 2] [--quick] [--out DIR]
"""

import argparse
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attention as forward_bench  # noqa: E402  (shared measuring helpers)

HEADS_Q, HEADS_KV, HEAD_DIM = 32, 8, 128


class Case:
    def __init__(self, b, nk):
        self.b, self.nk = b, nk

    @property
    def label(self):
        return f"B{self.b} Hq{HEADS_Q} Hkv{HEADS_KV} D{HEAD_DIM} Nq1 Nk{self.nk}"

    @property
    def flops(self):
        return 4 * self.b * HEADS_Q * self.nk * HEAD_DIM

    @property
    def kv_bytes(self):
        return 2 * self.b * HEADS_KV * self.nk * HEAD_DIM * 2

    def as_dict(self):
        return dict(b=self.b, nk=self.nk, hq=HEADS_Q, hkv=HEADS_KV, d=HEAD_DIM)


def cases(quick):
    shapes = [(8, 32768)] if quick else [(8, 32768), (1, 32768), (8, 4096),
                                         (32, 8192)]
    return [Case(b, nk) for b, nk in shapes]


def make_sets(case, n_sets, gen):
    def tensor(*shape):
        return torch.randn(*shape, generator=gen, device="cuda",
                           dtype=torch.bfloat16)
    return [(tensor(case.b, HEADS_Q, 1, HEAD_DIM),
             tensor(case.b, HEADS_KV, case.nk, HEAD_DIM),
             tensor(case.b, HEADS_KV, case.nk, HEAD_DIM))
            for _ in range(n_sets)]


def reference(q, k, v):
    group = HEADS_Q // HEADS_KV
    with sdpa_kernel(SDPBackend.MATH):
        return F.scaled_dot_product_attention(
            q[:1].float(), k[:1].float().repeat_interleave(group, 1),
            v[:1].float().repeat_interleave(group, 1))


def sdpa(backend):
    def make(case, sets):
        def run(i):
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(*sets[i], enable_gqa=True)
        return run
    return make


def flex(case, sets):
    run = forward_bench.compiled_flex()
    return lambda i: run(*sets[i], enable_gqa=True)


def attnc_decode(package):
    """Function `decode` of `package`, as an implementation of the table."""
    function = forward_bench.NamedFunction(package, "decode")
    return lambda case, sets: function.runner(sets)


def copy_bandwidth():
    """Bytes read and written per second by a 2 GiB device copy."""
    src = torch.empty(2 ** 30, dtype=torch.bfloat16, device="cuda")
    dst = torch.empty_like(src)
    ms = forward_bench.time_runs(lambda i: dst.copy_(src), 1, 3, 20)
    return 2 * src.numel() * src.element_size() / (ms * 1e-3)


def render(env, settings, names, table, bandwidth):
    lines = [f"# Decoding attention, {env['gpu']}, {env['date']}", ""]
    lines += [f"- {k}: `{v}`" for k, v in env.items() if k != "date"]
    lines += [f"- settings: {settings}",
              f"- copy bandwidth: {bandwidth / 1e12:.2f} TB/s (read + write)",
              "", "milliseconds (median of CUDA-event times; bf16); "
              "bound = K and V read at the copy bandwidth:", "",
              "| case | bound | " + " | ".join(names)
              + " | attnc / best peer | attnc / bound |",
              "|---" * (len(names) + 4) + "|"]
    for case, results in table:
        bound = case.kv_bytes / bandwidth * 1e3
        cells = [f"{r['ms']:.3f}" if r["status"] == "ok"
                 else f"{r['status']}: {r.get('message', r.get('rel_err'))}"
                 for r in (results[n] for n in names)]
        peers = [results[n]["ms"] for n in names[:-1]
                 if results[n]["status"] == "ok" and not n.startswith("attnc")]
        ours = results[names[-1]]
        ratio = (f"{min(peers) / ours['ms']:.2f}x" if peers and ours["status"] == "ok"
                 else "-")
        over = f"{ours['ms'] / bound:.2f}x" if ours["status"] == "ok" else "-"
        lines.append(f"| {case.label} | {bound:.3f} | " + " | ".join(cells)
                     + f" | {ratio} | {over} |")
    lines += ["", "rel_err against fp32 math attention (batch 0):", ""]
    for case, results in table:
        errs = ", ".join(f"{n} {results[n]['rel_err']:.4f}" for n in names
                         if "rel_err" in results[n])
        lines.append(f"- {case.label}: {errs}")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=os.path.join(forward_bench.REPO,
                                                      "bench", "results"))
    parser.add_argument("--package", required=True, action="append",
                        help="attnc package of bench/decode.mlir (repeatable)")
    forward_bench.add_run_arguments(parser, rounds=True)
    args = parser.parse_args()
    iters, warmup, settings = forward_bench.start_run(args, "decode.py")
    gen = torch.Generator(device="cuda").manual_seed(args.seed)
    impls = {"cudnn": sdpa(SDPBackend.CUDNN_ATTENTION),
             "flash": sdpa(SDPBackend.FLASH_ATTENTION),
             "flex": flex}
    for extra in args.package[1:]:
        impls["attnc:" + os.path.basename(extra)] = attnc_decode(extra)
    impls["attnc"] = attnc_decode(args.package[0])
    names = list(impls)
    bandwidth = copy_bandwidth()

    def measure_case(case):
        sets = make_sets(case, args.sets, gen)
        # The one query row of batch 0 (rel_err slices batch 0 itself).
        return forward_bench.measure_all(impls, case, sets, [0],
                                         reference(*sets[0]), warmup, iters,
                                         args.rounds)
    table = forward_bench.run_table(cases(args.quick), measure_case)
    env = forward_bench.environment()
    env["attnc"] = ", ".join(args.package)
    stem, text = forward_bench.write_reports(
        args.out, env, settings, names, table, "-decode",
        render=lambda e, s, n, t: render(e, s, n, t, bandwidth))
    print(text)
    print(f"wrote {stem}.md and {stem}.json")


if __name__ == "__main__":
    main()
