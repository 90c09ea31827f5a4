#!/usr/bin/env python3
"""How attnc's compile time grows with the number of functions in a module.

Generates modules of N public attention functions (each with its own mask
or score, so nothing is shared between them), compiles each with
`attnc --explain` for the given targets, and reports per N the median
wall time of several runs, the time per function, and the phases that
--explain's "compile time:" line gives. A least-squares line through
(N, seconds) gives the cost of one more function; the largest N's time per
function over the line's slope says whether growth stays linear (1.0:
exactly; more: something grows faster than the function count).

usage: python3 bench/compile_time.py [--attnc PATH] [--target host]
           [--counts 1,10,50,200] [--runs 3] [--out DIR]

Writes <out>/<date>-<host>-compile-time.md and .json (default out:
bench/results).
"""

import argparse
import datetime
import json
import os
import platform
import re
import statistics
import sys
import subprocess
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: What the functions cycle through, (attributes, region): masks and
#: scores of several kinds, so that every function gets kernels of its own.
VARIANTS = [
    ("{causal}", ""),
    ("{window_left = %(i)d}", ""),
    ("{causal, window_left = %(i)d}", ""),
    ("{causal}", """    score {
    ^bb0(%%s: f32, %%b: index, %%h: index, %%qi: index, %%ki: index):
      %%c = arith.constant %(i)d.0 : f32
      %%t = arith.divf %%s, %%c : f32
      %%u = math.tanh %%t : f32
      %%r = arith.mulf %%u, %%c : f32
      attn.yield %%r : f32
    }"""),
    ("", """    mask {
    ^bb0(%%b: index, %%h: index, %%qi: index, %%ki: index):
      %%c = arith.constant %(i)d : index
      %%d = arith.divui %%ki, %%c : index
      %%e = arith.divui %%qi, %%c : index
      %%ok = arith.cmpi eq, %%d, %%e : index
      attn.yield %%ok : i1
    }"""),
]


def module(n):
    """N functions f0 .. f<n-1> of f32 attention, 4 query heads over 2."""
    lines = ["!q = tensor<?x4x?x64xf32>", "!kv = tensor<?x2x?x64xf32>",
             "!lse = tensor<?x4x?xf32>", ""]
    for i in range(n):
        attrs, region = VARIANTS[i % len(VARIANTS)]
        values = {"i": i + 2}
        lines += [
            f"func.func @f{i}(%q: !q, %k: !kv, %v: !kv) -> (!q, !lse) {{",
            f"  %o, %l = attn.attention %q, %k, %v {attrs % values}",
            "      : !q, !kv, !kv -> !q, !lse"]
        if region:
            lines.append(region % values)
        lines += ["  return %o, %l : !q, !lse", "}", ""]
    return "\n".join(lines)


def compile_once(attnc, source, target, out):
    """Wall seconds of one compile, and --explain's phases (ms by name)."""
    start = time.perf_counter()
    result = subprocess.run(
        [attnc, source, f"--target={target}", "--explain", "-o", out],
        capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"attnc failed on {source}:\n{result.stderr}")
    phases = {}
    match = re.search(r"compile time: (.*)", result.stderr + result.stdout)
    if match:
        for name, ms in re.findall(r"([a-zA-Z ,]+?) (\d+) ms", match.group(1)):
            phases[name.strip(" ,")] = int(ms)
    return seconds, phases


def fit(points):
    """Least-squares slope and intercept of (x, y) points."""
    xs, ys = zip(*points)
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in points) / sxx if sxx else 0.0
    return slope, my - slope * mx


def measure(attnc, target, counts, runs, work):
    rows = []
    for n in counts:
        source = os.path.join(work, f"module-{n}.mlir")
        with open(source, "w") as f:
            f.write(module(n))
        samples = [compile_once(attnc, source, target,
                                os.path.join(work, "out.attnpkg"))
                   for _ in range(runs)]
        median = statistics.median(s for s, _ in samples)
        phases = min(samples, key=lambda s: abs(s[0] - median))[1]
        rows.append({"functions": n, "seconds": median,
                     "per_function": median / n, "phases_ms": phases})
        print(f"{target} N={n}: {median:.2f} s ({median / n * 1000:.0f} ms "
              f"per function) {phases}", flush=True)
    slope, intercept = fit([(r["functions"], r["seconds"]) for r in rows])
    last = rows[-1]
    growth = ((last["seconds"] - intercept) / last["functions"] / slope
              if slope > 0 else float("nan"))
    return {"target": target, "rows": rows, "slope": slope,
            "intercept": intercept, "growth": growth}


def markdown(env, results):
    lines = [f"# attnc compile time against function count, {env['date']}",
             ""]
    lines += [f"- {k}: `{v}`" for k, v in env.items()]
    for r in results:
        lines += ["", f"## target {r['target']}", "",
                  "| functions | seconds (median) | ms per function | "
                  "--explain phases (ms) |", "|---|---|---|---|"]
        for row in r["rows"]:
            phases = ", ".join(f"{k} {v}" for k, v in row["phases_ms"].items())
            lines.append(f"| {row['functions']} | {row['seconds']:.2f} | "
                         f"{row['per_function'] * 1000:.0f} | {phases} |")
        lines += ["", f"Least squares: {r['slope'] * 1000:.0f} ms per "
                  f"function + {r['intercept']:.2f} s. Largest module's cost "
                  f"per function over the slope: {r['growth']:.2f} "
                  "(1.0 is linear)."]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--attnc", default=os.path.join(
        REPO, "build", "bin", "attnc"), help="the attnc to time")
    parser.add_argument("--target", action="append",
                        help="target(s) to compile for (default: host)")
    parser.add_argument("--counts", default="1,10,50,200",
                        help="function counts, comma-separated")
    parser.add_argument("--runs", type=int, default=3,
                        help="compiles per count (the median is reported)")
    parser.add_argument("--out", default=os.path.join(REPO, "bench",
                                                      "results"))
    args = parser.parse_args()
    counts = [int(c) for c in args.counts.split(",")]
    env = {"date": datetime.date.today().isoformat(),
           "host": platform.node() or "unknown",
           "cpus": os.cpu_count(),
           "attnc": subprocess.run([args.attnc, "--version"],
                                   capture_output=True, text=True,
                                   check=False).stdout.strip(),
           "command": "python3 bench/compile_time.py " +
                      " ".join(sys.argv[1:])}
    with tempfile.TemporaryDirectory(prefix="attnc-compile-time-") as work:
        results = [measure(args.attnc, t, counts, args.runs, work)
                   for t in args.target or ["host"]]
    os.makedirs(args.out, exist_ok=True)
    stem = os.path.join(args.out, f"{env['date']}-{env['host']}-compile-time")
    with open(stem + ".json", "w") as f:
        json.dump({"environment": env, "results": results}, f, indent=1)
    with open(stem + ".md", "w") as f:
        f.write(markdown(env, results))
    print(markdown(env, results))
    print(f"wrote {stem}.md and {stem}.json")


if __name__ == "__main__":
    main()
