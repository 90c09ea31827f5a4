#!/usr/bin/env python3
"""Attention backward on one GPU: attnc against PyTorch's best kernels.

For bf16, head dims 64 and 128, shapes B4 H16 N4096 and B1 H16 N16384,
causal and not, times backward alone and forward + backward on the same
tensors, in one process:

  cudnn  SDPA with the cuDNN backend  (torch.nn.attention.sdpa_kernel)
  flash  SDPA with the flash backend  (FlashAttention-2 inside PyTorch)
  flex   torch.compile'd FlexAttention (a causal BlockMask when causal)
  attnc  a package function f and its gradient function (the one whose
         manifest entry says "gradient_of": f) through the attnc Python
         binding on the current CUDA device, when --package names a package
         with GPU kernels (bench/attention_backward.mlir)
  attnc (baseline)
         the same functions from --baseline-package, an earlier build's
         package, through the same runtime: a kernel change is measured
         against the kernels it replaces in one process

The PyTorch peers run through autograd: forward + backward is the forward
call and torch.autograd.grad of its output; backward alone is
torch.autograd.grad on a graph kept from one forward call per input set
(retain_graph). attnc runs f, then f's gradient function on q, k, v, the
saved out and lse, and dout.

Correctness comes first. Each implementation's dq, dk and dv of a small
problem of the case's configuration (B1 H16 N1024, same head dim and mask)
are compared with float64 autograd through plain math attention on the same
values; ||g - ref|| / ||ref|| above 2e-2 for any of them, or NaN, marks it
wrong. So does a non-finite gradient of the benchmark shape itself (cuDNN's
dq is NaN for some lengths). A wrong implementation is not timed.
Timing as bench/attention.py does it (CUDA events, a GPU sleep queued first,
median, input sets rotated). TFLOP/s: forward FLOPs F = 4*B*H*N^2*D, halved
for causal; backward alone does 2.5 F, forward + backward 3.5 F.

Every implementation runs in its own try/except: a failure is reported in
the table, never fatal. Writes <out>/<date>-<gpu>-backward.md and .json.

usage: python3 bench/attention_backward.py [--quick] [--out DIR]
           [--package FILE [--function NAME ...]] [--runtime-library FILE]
           [--baseline-package FILE]
"""

import argparse
import math
import os
import sys
from functools import lru_cache

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attention as forward_bench  # noqa: E402  (shared measuring helpers)
from attention import BASELINE, NO_GPU_KERNEL, REPO, NotApplicable  # noqa: E402

TOLERANCE = 2e-2  # bf16 gradients against the fp64 reference
CHECK_SHAPE = (1, 16, 1024)  # B, H, N of the correctness problem
BACKWARD_FLOPS, FORWARD_BACKWARD_FLOPS = 2.5, 3.5  # times the forward's
GRADS = ("dq", "dk", "dv")
MODES = (("backward", "backward alone", BACKWARD_FLOPS),
         ("forward_backward", "forward + backward", FORWARD_BACKWARD_FLOPS))


class Case(forward_bench.Case):
    """One configuration and shape; `flops` is the forward's."""

    def small(self):
        """The correctness problem: same head dim and mask, CHECK_SHAPE."""
        return Case(*CHECK_SHAPE, self.d, self.causal)


def cases(quick):
    return [Case(c.b, c.h, c.n, c.d, c.causal)
            for c in forward_bench.standard_cases(quick)]


# --- implementations --------------------------------------------------------
# Each has gradients(case, q, k, v, dout) -> (dq, dk, dv) and
# runners(case, sets) -> {"backward": run(i), "forward_backward": run(i)},
# where set i is (q, k, v, dout).

class TorchPeer:
    """A differentiable PyTorch attention forward(case, q, k, v) -> out,
    differentiated by autograd."""

    def __init__(self, forward):
        self.forward = forward

    def gradients(self, case, q, k, v, dout):
        inputs = [t.detach().requires_grad_() for t in (q, k, v)]
        out = self.forward(case, *inputs)
        return torch.autograd.grad(out, inputs, dout)

    def runners(self, case, sets):
        inputs = [[t.detach().requires_grad_() for t in s[:3]] for s in sets]
        kept = [self.forward(case, *i) for i in inputs]  # graphs to reuse

        def backward(i):
            return torch.autograd.grad(kept[i], inputs[i], sets[i][3],
                                       retain_graph=True)

        def forward_backward(i):
            out = self.forward(case, *inputs[i])
            return torch.autograd.grad(out, inputs[i], sets[i][3])
        return dict(backward=backward, forward_backward=forward_backward)


def sdpa(backend):
    def forward(case, q, k, v):
        with sdpa_kernel(backend):
            return F.scaled_dot_product_attention(q, k, v,
                                                  is_causal=case.causal)
    return TorchPeer(forward)


@lru_cache(maxsize=None)
def causal_block_mask(n):
    from torch.nn.attention.flex_attention import create_block_mask
    return create_block_mask(lambda b, h, q, kv: q >= kv, None, None, n, n,
                             device="cuda")


def flex_forward(case, q, k, v):
    mask = causal_block_mask(q.shape[2]) if case.causal else None
    return forward_bench.compiled_flex()(q, k, v, block_mask=mask)


class Attnc:
    """Package functions and their gradient functions, called through the
    Python binding on the current CUDA device. A failure to open the
    runtime or the package is kept and reported in every case."""

    def __init__(self, package, names):
        self.error, self.plans = None, []
        try:
            attnc = forward_bench.import_binding()
            self.torch_call = attnc.torch_call
            runtime = attnc.Runtime(f"cuda:{torch.cuda.current_device()}")
            with runtime, runtime.load(package) as pkg:
                self.producer = pkg.manifest.get("producer", "unknown")
                self.entries = {f["name"]: f for f in pkg.manifest["functions"]}
                self.gpu = any(k["target"].startswith("sm_")
                               for f in pkg.manifest["functions"]
                               for k in f.get("kernels", []))
                self.plans = [attnc.GradientPlan(pkg, name)
                              for name in names or self._differentiable(pkg)]
        except Exception as e:  # noqa: BLE001 - reported in the table
            self.error, self.producer = e, "unknown"

    def _differentiable(self, pkg):
        """Names of the functions that have a gradient function."""
        return [self.entries[f]["gradient_of"] for f in pkg.functions
                if "gradient_of" in self.entries[f]]

    def _plan(self, case, tensors):
        if self.error:
            raise self.error
        if not self.gpu:
            raise NotApplicable(NO_GPU_KERNEL)
        shapes = [tuple(t.shape) for t in tensors]
        for plan in self.plans:
            if forward_bench.fits(plan.forward,
                                  self.entries[plan.forward.name], case,
                                  shapes):
                return plan
        raise NotApplicable("n/a (no function of the package fits)")

    def _backward_args(self, plan, inputs, outputs, dout):
        # Attention's lse takes no cotangent; out takes dout.
        cotangents = [dout if j in plan.cotangent_outputs else None
                      for j in range(len(outputs))]
        return plan.gradient_arguments(inputs, outputs, cotangents, zeros=None)

    def gradients(self, case, q, k, v, dout):
        plan = self._plan(case, (q, k, v))
        outputs = self.torch_call(plan.forward, q, k, v)
        return self.torch_call(plan.gradient, *self._backward_args(
            plan, (q, k, v), outputs, dout))

    def runners(self, case, sets):
        plan = self._plan(case, sets[0][:3])
        saved = [self.torch_call(plan.forward, *s[:3]) for s in sets]
        args = [self._backward_args(plan, s[:3], o, s[3])
                for s, o in zip(sets, saved)]
        grads = self.torch_call(plan.gradient, *args[0])

        def backward(i):
            plan.gradient.call(args[i], grads, torch.cuda.current_stream())
            return grads

        def forward_backward(i):
            plan.forward.call(sets[i][:3], saved[i],
                              torch.cuda.current_stream())
            return backward(i)
        return dict(backward=backward, forward_backward=forward_backward)


class Unavailable:
    """An implementation that cannot run here, with the reason."""

    def __init__(self, message):
        self.message = message

    def gradients(self, case, *tensors):
        raise NotApplicable(self.message)

    runners = gradients


# --- measuring --------------------------------------------------------------

def reference_gradients(case, q, k, v, dout):
    """dq, dk, dv in float64 through plain math attention."""
    inputs = [t.detach().double().requires_grad_() for t in (q, k, v)]
    q64, k64, v64 = inputs
    scores = (q64 @ k64.transpose(-1, -2)) * case.d ** -0.5
    if case.causal:
        allowed = torch.ones(case.n, case.n, dtype=torch.bool,
                             device=q.device).tril()
        scores = scores.masked_fill(~allowed, -math.inf)
    out = torch.softmax(scores, dim=-1) @ v64
    return torch.autograd.grad(out, inputs, dout.double())


def random_set(case, generator):
    shape = (case.b, case.h, case.n, case.d)
    return tuple(torch.randn(shape, device="cuda", dtype=torch.bfloat16,
                             generator=generator) for _ in range(4))


def gradient_errors(impl, small, small_set, reference):
    """{"dq": err, ...} of `impl` on the correctness problem."""
    got = impl.gradients(small, *small_set)
    return {name: ((g.double() - r).norm() / r.norm()).item()
            for name, g, r in zip(GRADS, got, reference)}


def failure(e):
    text = " ".join(line.strip() for line in str(e).splitlines())
    return f"{type(e).__name__}: {text}"[:400]


def time_mode(run, flops, n_sets, warmup, iters):
    """{"ms", "tflops"} of one mode, or {"error"}: a mode can fail alone
    (backward alone needs a graph that survives retain_graph)."""
    try:
        ms = forward_bench.time_runs(run, n_sets, warmup, iters)
        return dict(ms=ms, tflops=flops / (ms * 1e-3) / 1e12)
    except Exception as e:  # noqa: BLE001 - reported in the table
        return dict(error=failure(e))


def measure(impl, case, sets, small_set, reference, warmup, iters):
    """One implementation on one case: a dict with status ok | wrong |
    error | n/a, the gradient errors, and per mode ms and TFLOP/s."""
    try:
        errors = gradient_errors(impl, case.small(), small_set, reference)
        if not all(e <= TOLERANCE for e in errors.values()):  # NaN fails
            return dict(status="wrong", errors=errors)
        big = impl.gradients(case, *sets[0])
        bad = [n for n, g in zip(GRADS, big) if not torch.isfinite(g).all()]
        if bad:
            return dict(status="wrong", errors=errors, message=(
                f"non-finite {', '.join(bad)} at {case.label}"))
        runners = impl.runners(case, sets)
        return dict(status="ok", errors=errors, **{
            mode: time_mode(runners[mode], factor * case.flops, len(sets),
                            warmup, iters) for mode, _, factor in MODES})
    except NotApplicable as e:
        return dict(status="n/a", message=str(e))
    except Exception as e:  # noqa: BLE001 - every failure goes in the table
        return dict(status="error", message=failure(e))
    finally:
        torch.cuda.empty_cache()


# --- reporting --------------------------------------------------------------

def cell(result, mode):
    if result["status"] == "ok":
        timed = result[mode]
        return f"{timed['tflops']:.1f}" if "tflops" in timed else \
            "error (see notes)"
    if result["status"] == "n/a":
        return result["message"]
    if result["status"] == "wrong":
        return "wrong (see errors)"
    return "error (see notes)"


def error_cell(result):
    errors = result.get("errors")
    if not errors:
        return "—"
    return " / ".join(f"{errors[n]:.2g}" for n in GRADS)


def ratio(results, mode, peers, digits=2):
    """attnc's TFLOP/s over the best of `peers`."""
    def tflops(name):
        result = results.get(name, {})
        return result.get(mode, {}).get("tflops") \
            if result.get("status") == "ok" else None
    best = max(filter(None, map(tflops, peers)), default=None)
    mine = tflops("attnc")
    return f"{mine / best:.{digits}f}×" if mine and best else "—"


def markdown(env, settings, names, table):
    """The report: environment, a TFLOP/s table per mode, the gradient
    errors, notes on failures."""
    peers = [n for n in names if n not in ("attnc", BASELINE)]
    baseline = BASELINE in names
    lines = [f"# Attention backward, {env['gpu']}, {env['date']}", ""]
    lines += [f"- {key}: `{env[key]}`" for key in
              ("gpu", "compute_capability", "driver", "torch", "cuda", "cudnn",
               "triton", "python", "attnc", "baseline", "command")
              if key in env]
    lines.append(f"- settings: {settings}")
    for mode, title, factor in MODES:
        lines += ["", f"{title}, TFLOP/s ({factor}·4·B·H·N²·D, halved for "
                  f"causal; median of CUDA-event times; bf16):", "",
                  "| case | " + " | ".join(names) + " | attnc / best peer |"
                  + (" attnc / baseline |" if baseline else ""),
                  "|---" * (len(names) + 2 + baseline) + "|"]
        lines += [f"| {case.label} | "
                  + " | ".join(cell(results[n], mode) for n in names)
                  + f" | {ratio(results, mode, peers)} |"
                  + (f" {ratio(results, mode, [BASELINE], 3)} |"
                     if baseline else "")
                  for case, results in table]
    b, h, n = CHECK_SHAPE
    lines += ["", f"‖g − ref‖/‖ref‖ of dq / dk / dv against float64 math "
              f"attention on B{b} H{h} N{n} of the case's head dim and mask "
              f"(tolerance {TOLERANCE}):", "",
              "| case | " + " | ".join(names) + " |",
              "|---" * (len(names) + 1) + "|"]
    lines += [f"| {case.label} | "
              + " | ".join(error_cell(results[n]) for n in names) + " |"
              for case, results in table]
    notes = [f"- {case.label}, {n}: {results[n]['message']}"
             for case, results in table for n in names
             if results[n]["status"] in ("error", "wrong")
             and "message" in results[n]]
    notes += [f"- {case.label}, {n}, {title}: {results[n][mode]['error']}"
              for case, results in table for n in names
              for mode, title, _ in MODES
              if "error" in results[n].get(mode, {})]
    if notes:
        lines += ["", "Failures:", ""] + notes
    return "\n".join(lines) + "\n"


def progress(case, name, result):
    if result["status"] == "ok":
        detail = ", ".join(
            f"{mode} {result[mode]['tflops']:.1f} TFLOP/s "
            f"({result[mode]['ms']:.3f} ms)" if "ms" in result[mode]
            else f"{mode} {result[mode]['error']}" for mode, _, _ in MODES)
        detail += f", errors {error_cell(result)}"
    elif result["status"] == "wrong":
        detail = f"wrong: errors {error_cell(result)} {result.get('message', '')}"
    else:
        detail = result["message"]
    print(f"{case.label:<24} {name:<13} {detail}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=os.path.join(REPO, "bench", "results"),
                        help="folder for the .md and .json reports")
    parser.add_argument("--package", help="attnc package with GPU kernels "
                        "and gradient functions")
    parser.add_argument("--function", action="append", default=[],
                        help="package function(s) to try (default: every "
                        "one with a gradient function); each case uses the "
                        "first one that fits it")
    parser.add_argument("--baseline-package",
                        help="an earlier build's package of the same "
                        "functions, run through the same runtime (a change "
                        "of the kernels is measured against it in one run)")
    forward_bench.add_run_arguments(parser)
    args = parser.parse_args()
    iters, warmup, settings = forward_bench.start_run(
        args, "attention_backward.py")
    # A compiled backward that donates its saved buffers refuses
    # retain_graph, which backward alone needs (flex).
    try:
        import torch._functorch.config as functorch_config
        functorch_config.donated_buffer = False
    except (ImportError, AttributeError):  # a torch without donated buffers
        pass
    impls = {"cudnn (SDPA)": sdpa(SDPBackend.CUDNN_ATTENTION),
             "flash (SDPA)": sdpa(SDPBackend.FLASH_ATTENTION),
             "flex": TorchPeer(flex_forward)}
    env = forward_bench.environment()
    if args.package:
        impls["attnc"] = Attnc(args.package, args.function)
        env["attnc"] = f"{args.package} ({impls['attnc'].producer})"
    else:
        impls["attnc"] = Unavailable(NO_GPU_KERNEL)
    if args.baseline_package:
        impls[BASELINE] = Attnc(args.baseline_package, args.function)
        env["baseline"] = (f"{args.baseline_package} "
                           f"({impls[BASELINE].producer})")
    names = list(impls)
    generator = torch.Generator(device="cuda").manual_seed(args.seed)
    table = []  # (case, {implementation: result})
    for case in cases(args.quick):
        sets = [random_set(case, generator) for _ in range(args.sets)]
        small_set = random_set(case.small(), generator)
        reference = reference_gradients(case.small(), *small_set)
        results = {}
        for name, impl in impls.items():
            results[name] = measure(impl, case, sets, small_set, reference,
                                    warmup, iters)
            progress(case, name, results[name])
        table.append((case, results))
        del sets, reference
        torch.cuda.empty_cache()
        stem, text = forward_bench.write_reports(
            args.out, env, settings, names, table,
            "-backward" + ("-quick" if args.quick else ""), markdown)
    print()
    print(text)
    print(f"wrote {stem}.md and {stem}.json")


if __name__ == "__main__":
    main()
