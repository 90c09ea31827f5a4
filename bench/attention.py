#!/usr/bin/env python3
"""Forward attention on one GPU: attnc against PyTorch's best kernels.

For bf16, head dims 64 and 128, shapes B4 H16 N4096 and B1 H16 N16384,
causal and not, times on the same tensors, in one process:

  cudnn  SDPA with the cuDNN backend  (torch.nn.attention.sdpa_kernel)
  flash  SDPA with the flash backend  (FlashAttention-2 inside PyTorch)
  flex   torch.compile'd FlexAttention (a causal BlockMask when causal)
  attnc  a package function through the attnc Python binding on cuda:0,
         when --package names a package with GPU kernels
  attnc (baseline)
         another build of attnc in the same process, when --baseline names
         its Python binding (a folder holding attnc/ with its own
         libattnrt.so) and --baseline-package its package: a change is
         measured against the code it replaces on the same tensors

Correctness comes first: each implementation's output is compared with an
fp32 SDPA math reference on a slice (batch 0, every head, query rows spread
over the sequence); ||out - ref|| / ||ref|| above 2e-2, or NaN, marks it
wrong and it is not timed. Timing: CUDA events around each run, after
warm-up; a GPU sleep queued first lets the CPU enqueue every timed run, so
launch overhead stays out of the times; the median over the runs; the runs
rotate over several input sets so that L2 cannot hold the inputs.
TFLOP/s by the FlashAttention convention: 4*B*H*N^2*D, halved for causal.

Every implementation runs in its own try/except: a failure is reported in
the table, never fatal. Writes <out>/<date>-<gpu>.md and .json.

usage: python3 bench/attention.py [--quick] [--out DIR]
                                  [--package FILE [--function NAME ...]]
                                  [--baseline DIR --baseline-package FILE]
"""

import argparse
import datetime
import importlib.util
import json
import math
import os
import re
import shlex
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOLERANCE = 2e-2  # bf16 output against the fp32 reference
REFERENCE_ROWS = 256  # query rows of the reference slice
NO_GPU_KERNEL = "n/a (no GPU kernel in this build)"
BASELINE = "attnc (baseline)"


class NotApplicable(Exception):
    """An implementation that does not cover a case (not a failure)."""


class Case:
    """B batches of H query heads over H_kv key/value heads (H unless
    grouped-query), N rows, head dim D, in `dtype` (bf16 or f16)."""

    def __init__(self, b, h, n, d, causal, dtype="bf16", h_kv=None):
        self.b, self.h, self.n, self.d, self.causal = b, h, n, d, causal
        self.dtype, self.h_kv = dtype, h_kv or h

    @property
    def label(self):
        heads = f"H{self.h}" + (f":{self.h_kv}" if self.h_kv != self.h else "")
        return (f"B{self.b} {heads} N{self.n} D{self.d}"
                + (" f16" if self.dtype == "f16" else "")
                + (" causal" if self.causal else ""))

    @property
    def torch_dtype(self):
        return torch.float16 if self.dtype == "f16" else torch.bfloat16

    def shapes(self):
        """The shapes of q, k and v."""
        kv = (self.b, self.h_kv, self.n, self.d)
        return [(self.b, self.h, self.n, self.d), kv, kv]

    @property
    def flops(self):
        full = 4 * self.b * self.h * self.n * self.n * self.d
        return full / 2 if self.causal else full

    def as_dict(self):
        return dict(b=self.b, h=self.h, n=self.n, d=self.d, causal=self.causal,
                    dtype=self.dtype, h_kv=self.h_kv)


def standard_cases(quick):
    """Head dims 64 and 128, causal and not (also the backward's cases)."""
    shapes = [(4, 16, 4096)] + ([] if quick else [(1, 16, 16384)])
    return [Case(b, h, n, d, causal) for b, h, n in shapes
            for d in (64, 128) for causal in (False, True)]


def cases(quick):
    """The standard cases and, in a full run, the rest of the forward bars:
    head dim 256; f16 at head dims 64, 128 and 256; head dims 80 and 96
    causal; grouped-query attention, 32 query heads over 8, causal."""
    if quick:
        return standard_cases(quick)
    shapes = [(4, 16, 4096), (1, 16, 16384)]
    wide = [Case(b, h, n, 256, causal) for b, h, n in shapes
            for causal in (False, True)]
    f16 = [Case(b, h, n, d, causal, "f16") for b, h, n in shapes
           for d in (64, 128, 256) for causal in (False, True)]
    partial_panels = [Case(4, 16, 4096, d, True) for d in (80, 96)]
    gqa = [Case(2, 32, 8192, 128, True, h_kv=8)]
    return standard_cases(quick) + wide + f16 + partial_panels + gqa


# --- implementations --------------------------------------------------------
# Each is make(case, sets) -> run(i), where run(i) computes the attention of
# input set i (q, k, v) and returns the output tensor [B, H, N, D].

def sdpa(backend):
    def make(case, sets):
        def run(i):
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(
                    *sets[i], is_causal=case.causal,
                    enable_gqa=case.h_kv != case.h)
        return run
    return make


_compiled_flex = None


def compiled_flex():
    """torch.compile'd flex_attention, compiled once per process for every
    benchmark (it still specializes per case)."""
    global _compiled_flex
    if _compiled_flex is None:
        from torch.nn.attention.flex_attention import flex_attention
        _compiled_flex = torch.compile(flex_attention, dynamic=False)
    return _compiled_flex


def flex(case, sets):
    from torch.nn.attention.flex_attention import create_block_mask
    run = compiled_flex()
    mask = None
    if case.causal:
        mask = create_block_mask(lambda b, h, q, kv: q >= kv, None, None,
                                 case.n, case.n, device="cuda")
    return lambda i: run(*sets[i], block_mask=mask,
                         enable_gqa=case.h_kv != case.h)


class Attnc:
    """Functions of an attnc package, called through the Python binding on
    the current CUDA device. A failure to open the runtime or the package is
    kept and reported in every case."""

    def __init__(self, package, names, binding=None):
        self.error, self.functions = None, []
        try:
            attnc = binding or import_binding()
            self.torch_call = attnc.torch_call
            runtime = attnc.Runtime(f"cuda:{torch.cuda.current_device()}")
            with runtime, runtime.load(package) as pkg:
                self.producer = pkg.manifest.get("producer", "unknown")
                entries = {f["name"]: f for f in pkg.manifest["functions"]}
                self.functions = [(pkg.function(name), entries[name])
                                  for name in names or pkg.functions]
        except Exception as e:  # noqa: BLE001 - reported in the table
            self.error, self.producer = e, "unknown"

    def __call__(self, case, sets):
        if self.error:
            raise self.error
        if not any(k["target"].startswith("sm_")
                   for _, entry in self.functions
                   for k in entry.get("kernels", [])):
            raise NotApplicable(NO_GPU_KERNEL)
        shapes = [tuple(t.shape) for t in sets[0]]
        for fn, entry in self.functions:
            if fits(fn, entry, case, shapes):
                return self._runner(fn, sets)
        raise NotApplicable("n/a (no function of the package fits)")

    def _runner(self, fn, sets):
        # torch_call allocates the outputs (and runs once); they are then
        # poisoned, so that the correctness run must write every element.
        outputs = self.torch_call(fn, *sets[0])
        for t in outputs:
            t.fill_(math.nan)
        names = [spec.name for spec in fn.signature.outputs]
        out = outputs[names.index("out") if "out" in names else 0]

        def run(i):
            fn.call(sets[i], outputs, torch.cuda.current_stream())
            return out
        return run


class NamedFunction:
    """Function `name` of an attnc package through the Python binding (or
    `binding`) on the current CUDA device, for the benchmarks that call one
    function; a failure to load it is kept and raised by every runner."""

    def __init__(self, package, name, binding=None):
        self.error = None
        try:
            attnc = binding or import_binding()
            self.torch_call = attnc.torch_call
            self.runtime = attnc.Runtime(f"cuda:{torch.cuda.current_device()}")
            self.package = self.runtime.load(package)
            self.fn = self.package.function(name)
        except Exception as e:  # noqa: BLE001 - reported in the table
            self.error = e

    def runner(self, sets, extra=()):
        """run(i): the function on input set i and then `extra` inputs,
        into outputs made once (and poisoned, so that the first run must
        write them); returns the first output."""
        if self.error:
            raise self.error
        outputs = self.torch_call(self.fn, *sets[0], *extra)
        for t in outputs:
            t.fill_(math.nan)

        def run(i):
            self.fn.call([*sets[i], *extra], outputs,
                         torch.cuda.current_stream())
            return outputs[0]
        return run


def run_table(case_list, measure_case):
    """[(case, {implementation: result})] by measure_case(case) for each
    case, printing each row as it is measured; its tensors are freed before
    the next case."""
    table = []
    for case in case_list:
        results = measure_case(case)
        table.append((case, results))
        print(case.label, {n: r.get("ms", r["status"]) for n, r in results.items()},
              flush=True)
        torch.cuda.empty_cache()
    return table


def no_attnc(case, sets):
    raise NotApplicable(NO_GPU_KERNEL)


def import_binding():
    sys.path.insert(0, os.path.join(REPO, "python"))
    import attnc
    return attnc


def import_baseline(folder):
    """The attnc binding in `folder`/attnc, as a module of its own that
    loads the libattnrt.so beside it (even if ATTNC_RUNTIME_LIBRARY names
    another one)."""
    package_dir = os.path.join(folder, "attnc")
    spec = importlib.util.spec_from_file_location(
        "attnc_baseline", os.path.join(package_dir, "__init__.py"),
        submodule_search_locations=[package_dir])
    module = importlib.util.module_from_spec(spec)
    sys.modules["attnc_baseline"] = module
    spec.loader.exec_module(module)
    saved = os.environ.get("ATTNC_RUNTIME_LIBRARY")
    os.environ["ATTNC_RUNTIME_LIBRARY"] = os.path.join(package_dir,
                                                       "libattnrt.so")
    try:
        module.Runtime(f"cuda:{torch.cuda.current_device()}").close()
    finally:
        if saved is None:
            del os.environ["ATTNC_RUNTIME_LIBRARY"]
        else:
            os.environ["ATTNC_RUNTIME_LIBRARY"] = saved
    return module


def attention_spec(entry):
    """The attention a package function computes, if it is one attention of
    its inputs: from the ops of schema 2, or the "attention" of schema 1."""
    ops = entry.get("ops")
    if ops is None:
        return entry.get("attention") or {}
    spec = ops[0] if len(ops) == 1 else {}
    inputs = [sig["name"] for sig in entry["inputs"]]
    return spec if spec.get("kind") == "attention" and \
        spec.get("operands") == inputs else {}


def fits(fn, entry, case, shapes):
    """Whether package function `fn` computes `case` on tensors of `shapes`:
    q, k, v of the case's dtype whose static dims and symbols agree, and one op: plain
    softmax attention of the inputs with the default scale and the case's
    causality."""
    spec = attention_spec(entry)
    if (len(fn.signature.inputs) != 3 or not spec
            or bool(spec.get("causal")) != case.causal
            or any(key in spec for key in ("bottom_right", "window_left",
                                           "window_right", "mask", "score"))
            or not math.isclose(spec.get("scale", 0), case.d ** -0.5,
                                rel_tol=1e-6)):
        return False
    bound = {}
    for sig, shape in zip(fn.signature.inputs, shapes):
        if sig.dtype != case.dtype or len(sig.shape) != len(shape):
            return False
        for dim, extent in zip(sig.shape, shape):
            if isinstance(dim, str):
                if bound.setdefault(dim, extent) != extent:
                    return False
            elif dim != extent:
                return False
    return True


# --- measuring --------------------------------------------------------------

def reference_slice(case, q, k, v):
    """fp32 SDPA (math backend) for batch 0, every head and REFERENCE_ROWS
    query rows spread over the sequence: (rows, ref [1, H, rows, D])."""
    rows = torch.linspace(0, case.n - 1, min(REFERENCE_ROWS, case.n),
                          device="cuda").round().long().unique()
    mask = None
    if case.causal:
        mask = torch.arange(case.n, device="cuda")[None, :] <= rows[:, None]
    group = case.h // case.h_kv
    with sdpa_kernel(SDPBackend.MATH):
        ref = F.scaled_dot_product_attention(
            q[:1, :, rows].float(),
            k[:1].float().repeat_interleave(group, 1),
            v[:1].float().repeat_interleave(group, 1), attn_mask=mask)
    return rows, ref


def rel_err(out, rows, ref):
    got = out[:1, :, rows].float()
    return ((got - ref).norm() / ref.norm()).item()  # NaN stays NaN


def time_runs(run, n_sets, warmup, iters):
    """Median milliseconds of `iters` runs after `warmup` ones."""
    torch.cuda.synchronize()
    begin = time.perf_counter()
    for i in range(warmup):
        run(i % n_sets)
    enqueue_s = (time.perf_counter() - begin) / max(warmup, 1)
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    # Hold the GPU (about 2 GHz) while the CPU queues every run: a generous
    # multiple of the CPU time the warm-up runs took.
    if hasattr(torch.cuda, "_sleep"):
        torch.cuda._sleep(int(2e9 * max(0.02, 3 * enqueue_s * iters)))
    for i in range(iters):
        starts[i].record()
        run(i % n_sets)
        ends[i].record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in zip(starts, ends))


def failure(e):
    """The table cell of exception `e`."""
    if isinstance(e, NotApplicable):
        return dict(status="n/a", message=str(e))
    text = " ".join(line.strip() for line in str(e).splitlines())
    return dict(status="error", message=f"{type(e).__name__}: {text}"[:400])


def timed(cell, case, ms):
    """`cell` with its time and TFLOP/s."""
    return dict(cell, ms=ms, tflops=case.flops / (ms * 1e-3) / 1e12)


def prepare(make, case, sets, rows, ref):
    """(cell, run): the checked runner of `make` with cell status ok, or
    the wrong | error | n/a cell and None."""
    try:
        run = make(case, sets)
        err = rel_err(run(0), rows, ref)
        if not err <= TOLERANCE:  # NaN fails too
            return dict(status="wrong", rel_err=err), None
        return dict(status="ok", rel_err=err), run
    except Exception as e:  # noqa: BLE001 - every failure goes in the table
        return failure(e), None


def measure(make, case, sets, rows, ref, warmup, iters):
    """One table cell: a dict with status ok | wrong | error | n/a."""
    try:
        cell, run = prepare(make, case, sets, rows, ref)
        if run is None:
            return cell
        return timed(cell, case, time_runs(run, len(sets), warmup, iters))
    except Exception as e:  # noqa: BLE001 - every failure goes in the table
        return failure(e)
    finally:
        torch.cuda.empty_cache()


def measure_all(impls, case, sets, rows, ref, warmup, iters, rounds):
    """A table row, {name: cell} for each make of `impls`. With rounds > 1
    the implementations take turns, `rounds` times, each timing its runs
    in every turn; a cell's time is the median of its turns' medians (its
    `round_ms`), so that a slow stretch of the GPU (clocks, heat) falls on
    every implementation alike, not on whichever ran then. Odd rounds run
    the implementations in reverse order: identical packages timed one
    after the other in a fixed order read up to 9% apart on the H200, the
    later one slower (2026-12-04), so even round counts balance it."""
    if rounds <= 1:
        return {n: measure(make, case, sets, rows, ref, warmup, iters)
                for n, make in impls.items()}
    prepared = {n: prepare(make, case, sets, rows, ref)
                for n, make in impls.items()}
    turns = {n: [] for n, (_, run) in prepared.items() if run is not None}
    cells = {n: cell for n, (cell, _) in prepared.items()}
    names = list(turns)
    for round_index in range(rounds):
        for n in names if round_index % 2 == 0 else names[::-1]:
            if n not in turns:
                continue
            try:
                turns[n].append(time_runs(prepared[n][1], len(sets), warmup,
                                          iters))
            except Exception as e:  # noqa: BLE001 - a cell, not the run
                cells[n] = failure(e)
                del turns[n]
    for n, times in turns.items():
        cells[n] = dict(timed(cells[n], case, statistics.median(times)),
                        round_ms=times)
    del prepared
    torch.cuda.empty_cache()
    return cells


# --- reporting --------------------------------------------------------------

def environment():
    try:
        driver = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=30).stdout.split("\n")[0]
    except (OSError, subprocess.SubprocessError):
        driver = ""
    cudnn = torch.backends.cudnn.version()
    try:
        import triton
        triton_version = triton.__version__
    except Exception:  # noqa: BLE001
        triton_version = "not available"
    props = torch.cuda.get_device_properties(0)
    return {
        "date": datetime.date.today().isoformat(),
        "gpu": torch.cuda.get_device_name(0),
        "compute_capability": f"{props.major}.{props.minor}",
        "driver": driver.strip() or "unknown",
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "cudnn": (f"{cudnn // 10000}.{cudnn % 10000 // 100}.{cudnn % 100}"
                  if cudnn else "not available"),
        "triton": triton_version,
        "python": sys.version.split()[0],
        "command": "python3 " + " ".join(shlex.quote(a) for a in sys.argv),
    }


def cell(result):
    if result["status"] == "ok":
        return f"{result['tflops']:.1f}"
    if result["status"] == "n/a":
        return result["message"]
    if result["status"] == "wrong":
        return f"wrong (rel err {result['rel_err']:.2g})"
    return "error (see notes)"


def markdown(env, settings, names, table):
    """The report: environment, TFLOP/s table, errors table, failure notes."""
    peers = [n for n in names if n not in ("attnc", BASELINE)]
    baseline = BASELINE in names
    lines = [f"# Attention forward, {env['gpu']}, {env['date']}", ""]
    lines += [f"- {key}: `{env[key]}`" for key in
              ("gpu", "compute_capability", "driver", "torch", "cuda", "cudnn",
               "triton", "python", "attnc", "baseline", "command")
              if key in env]
    lines += [f"- settings: {settings}", "",
              "TFLOP/s (4·B·H·N²·D, halved for causal; median of CUDA-event "
              "times; bf16 unless the case says f16):", "",
              "| case | " + " | ".join(names) + " | attnc / best peer |"
              + (" attnc / baseline |" if baseline else ""),
              "|---" * (len(names) + 2 + baseline) + "|"]
    for case, results in table:
        best = max((results[p]["tflops"] for p in peers
                    if results[p]["status"] == "ok"), default=None)
        mine = results.get("attnc", {})
        ratio = (f"{mine['tflops'] / best:.2f}×"
                 if mine.get("status") == "ok" and best else "—")
        row = (f"| {case.label} | "
               + " | ".join(cell(results[n]) for n in names) + f" | {ratio} |")
        if baseline:
            base = results[BASELINE]
            row += (f" {mine['tflops'] / base['tflops']:.3f}× |"
                    if mine.get("status") == "ok" and base["status"] == "ok"
                    else " — |")
        lines.append(row)
    lines += ["", f"‖out − ref‖/‖ref‖ against fp32 SDPA math on a slice "
              f"(batch 0, all heads, {REFERENCE_ROWS} query rows; tolerance "
              f"{TOLERANCE}):", "",
              "| case | " + " | ".join(names) + " |",
              "|---" * (len(names) + 1) + "|"]
    for case, results in table:
        lines.append(f"| {case.label} | " + " | ".join(
            f"{r['rel_err']:.2g}" if "rel_err" in r else "—"
            for r in (results[n] for n in names)) + " |")
    notes = [f"- {case.label}, {n}: {results[n]['message']}"
             for case, results in table for n in names
             if results[n]["status"] == "error"]
    if notes:
        lines += ["", "Failures:", ""] + notes
    return "\n".join(lines) + "\n"


def write_reports(out_dir, env, settings, names, table, suffix,
                  render=None):
    """Writes DATE-GPU{suffix}.md (by `render`, default this benchmark's
    markdown) and .json under `out_dir`."""
    gpu = re.sub(r"[^A-Za-z0-9]+", "-", env["gpu"]).strip("-")
    stem = os.path.join(out_dir, f"{env['date']}-{gpu}{suffix}")
    os.makedirs(out_dir, exist_ok=True)
    text = (render or markdown)(env, settings, names, table)
    with open(stem + ".md", "w") as f:
        f.write(text)
    with open(stem + ".json", "w") as f:
        json.dump(dict(env, settings=settings, results=[
            dict(case.as_dict(), implementation=n, **results[n])
            for case, results in table for n in names]), f, indent=2)
    return stem, text


def start_package_run(doc, source, script):
    """The command line of a benchmark of one attnc source file (`source`,
    e.g. bench/documents.mlir; --out, --package, --baseline,
    --baseline-package and the run options) and start_run's settings:
    (args, iters, warmup, settings, generator)."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--out", default=os.path.join(REPO, "bench", "results"),
                        help="folder for the .md and .json reports")
    parser.add_argument("--package", required=True,
                        help=f"attnc package of {source}")
    parser.add_argument("--baseline", help="folder of another attnc build's "
                        "Python binding (attnc/ with its libattnrt.so)")
    parser.add_argument("--baseline-package",
                        help=f"another package of {source}, run through "
                        "--baseline's binding (default: this one)")
    add_run_arguments(parser, rounds=True)
    args = parser.parse_args()
    iters, warmup, settings = start_run(args, script)
    gen = torch.Generator(device="cuda").manual_seed(args.seed)
    return args, iters, warmup, settings, gen


def attnc_implementations(args, make):
    """The attnc columns of a table: the baseline package's (when given)
    and --package's, each make(package, binding)."""
    impls = {}
    if args.baseline_package:
        binding = import_baseline(args.baseline) if args.baseline else None
        impls[BASELINE] = make(args.baseline_package, binding)
    impls["attnc"] = make(args.package, None)
    return impls


def run_pair_benchmark(doc, source, script, flex, attnc, measure_case,
                       cases, suffix, title):
    """main() of a benchmark of one attnc source file against Flex whose
    TFLOP/s count the allowed pairs (documents.py, variants.py): `flex` and
    attnc(package, binding) make the implementations, cases(quick) the
    cases, measure_case(case, impls, args, gen, warmup, iters) a table
    row."""
    args, iters, warmup, settings, gen = start_package_run(doc, source, script)
    impls = {"flex": flex, **attnc_implementations(args, attnc)}
    table = run_table(cases(args.quick), lambda case: measure_case(
        case, impls, args, gen, warmup, iters))
    write_pair_reports(args, settings, list(impls), table, suffix, title)


def write_pair_reports(args, settings, names, table, suffix, title):
    """Writes and prints the reports of a benchmark whose TFLOP/s count the
    allowed (query, key) pairs (documents.py, variants.py)."""
    env = environment()
    env["attnc"] = args.package
    stem, text = write_reports(
        args.out, env, settings, names, table, suffix,
        render=lambda *a: markdown(*a).replace(
            "Attention forward", title).replace(
            "4·B·H·N²·D, halved for causal", "4·B·H·D per allowed pair"))
    print(text)
    print(f"wrote {stem}.md and {stem}.json")


def add_run_arguments(parser, rounds=False):
    """The options every benchmark of bench/ shares, and --rounds for those
    that measure through measure_all."""
    parser.add_argument("--runtime-library",
                        help="libattnrt.so to use (sets ATTNC_RUNTIME_LIBRARY)")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: N=4096 only, few iterations")
    parser.add_argument("--iters", type=int, help="timed runs (default 30, quick 5)")
    parser.add_argument("--warmup", type=int, help="warm-up runs (default 10, quick 2)")
    parser.add_argument("--sets", type=int, default=3,
                        help="input sets rotated across runs (default 3)")
    parser.add_argument("--seed", type=int, help="input seed (default: random)")
    if rounds:
        parser.add_argument("--rounds", type=int, default=1,
                            help="turns each implementation takes at a "
                            "case, in rotation; its time is the median of "
                            "its turns' (default 1: one after the other)")


def start_run(args, script):
    """Checks for a GPU, applies the shared options and prints the seed;
    returns the timed and warm-up run counts and the settings line."""
    if not torch.cuda.is_available():
        sys.exit(f"{script}: no CUDA device visible to PyTorch")
    if args.runtime_library:
        os.environ["ATTNC_RUNTIME_LIBRARY"] = args.runtime_library
    iters = args.iters or (5 if args.quick else 30)
    warmup = args.warmup if args.warmup is not None else (2 if args.quick else 10)
    seed = (args.seed if args.seed is not None
            else int.from_bytes(os.urandom(4), "little"))
    args.seed = seed
    settings = (f"seed {seed}, {iters} timed runs after {warmup} warm-up runs, "
                f"{args.sets} input sets")
    if getattr(args, "rounds", 1) > 1:
        settings += (f", {args.rounds} rounds (the implementations in turn; "
                     "the median of their medians)")
    print(f"seed: {seed}", flush=True)
    torch.set_float32_matmul_precision("highest")  # an fp32 reference
    for name in ("recompile_limit", "cache_size_limit"):  # flex recompiles per case
        if hasattr(torch._dynamo.config, name):
            setattr(torch._dynamo.config, name, 64)
    return iters, warmup, settings


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=os.path.join(REPO, "bench", "results"),
                        help="folder for the .md and .json reports")
    parser.add_argument("--package", help="attnc package with GPU kernels")
    parser.add_argument("--function", action="append", default=[],
                        help="package function(s) to try (default: all); "
                        "each case uses the first one that fits it")
    parser.add_argument("--baseline",
                        help="folder holding another attnc binding (attnc/ "
                        "with its libattnrt.so) to measure beside this one")
    parser.add_argument("--baseline-package",
                        help="another package of the same functions, run "
                        "through --baseline's binding (default: this one)")
    add_run_arguments(parser, rounds=True)
    args = parser.parse_args()
    iters, warmup, settings = start_run(args, "attention.py")
    impls = {"cudnn (SDPA)": sdpa(SDPBackend.CUDNN_ATTENTION),
             "flash (SDPA)": sdpa(SDPBackend.FLASH_ATTENTION),
             "flex": flex}
    env = environment()
    if args.package:
        impls.update(attnc_implementations(
            args, lambda package, binding: Attnc(package, args.function,
                                                 binding)))
        env["attnc"] = f"{args.package} ({impls['attnc'].producer})"
        if BASELINE in impls:
            env["baseline"] = (f"{args.baseline_package} "
                               f"({impls[BASELINE].producer})")
    else:
        impls["attnc"] = no_attnc
    names = list(impls)
    generator = torch.Generator(device="cuda").manual_seed(args.seed)
    table = []  # (case, {implementation: result})
    for case in cases(args.quick):
        sets = [tuple(torch.randn(shape, device="cuda", dtype=case.torch_dtype,
                                  generator=generator)
                      for shape in case.shapes())
                for _ in range(args.sets)]
        rows, ref = reference_slice(case, *sets[0])
        results = measure_all(impls, case, sets, rows, ref, warmup, iters,
                              args.rounds)
        for name, r in results.items():
            detail = (f"{r['tflops']:.1f} TFLOP/s ({r['ms']:.3f} ms), "
                      f"rel err {r['rel_err']:.2g}" if r["status"] == "ok"
                      else cell(r) if r["status"] != "error" else r["message"])
            print(f"{case.label:<24} {name:<13} {detail}", flush=True)
        table.append((case, results))
        del sets, ref
        torch.cuda.empty_cache()
        suffix = ("-quick" if args.quick else "") + \
            ("-baseline" if args.baseline_package else "")
        stem, text = write_reports(args.out, env, settings, names, table,
                                   suffix)
    print()
    print(text)
    print(f"wrote {stem}.md and {stem}.json")


if __name__ == "__main__":
    main()
