#!/usr/bin/env python3
"""A/B of attnc packages by `attn-run --bench`, the packages in turns.

Times each case (a function of the packages and its attn-run arguments)
with every package, in rounds: in each round every case runs once with
each package, one after the other (odd rounds in reverse order, since
the later of two identical kernels timed back to back reads slower on
the H200), so that a slow stretch of the device falls on all of them
alike. A package's time at a case is the smallest of
its rounds' minimums (attn-run's minimum over --iters runs: identical
kernels agree within 0.5% this way on the H200, where one run of a full
benchmark moves by 5%). Needs no PyTorch; the device is attn-run's.

usage: python3 bench/ab.py --package base=OLD.attnpkg --package new=NEW.attnpkg \\
         --case 'hd128 --shape q=4x16x4096x128 --shape k=4x16x4096x128 ...' \\
         [--case ...] [--device cuda:0] [--rounds 3] [--iters 40] \\
         [--attn-run PATH] [--out FILE.md]

Prints a markdown table (and rewrites --out after each round): per case
each package's best minimum in ms with its rounds' range, and each
package's speed-up over the first (its time over theirs).
"""

import argparse
import datetime
import os
import re
import shlex
import subprocess
import sys

MIN_RE = re.compile(r"min: ([0-9.]+) ms")


def time_case(attn_run, package, case, device, iters):
    """attn-run's minimum in ms of `case` with `package`, or the error."""
    fn, *extra = shlex.split(case)
    command = [attn_run, package, "--fn", fn, "--device", device, *extra,
               "--bench", "--iters", str(iters)]
    done = subprocess.run(command, capture_output=True, text=True)
    found = MIN_RE.search(done.stdout)
    if done.returncode != 0 or not found:
        last = (done.stderr.strip() or done.stdout.strip()).splitlines()
        return None, last[-1] if last else f"exit {done.returncode}"
    return float(found.group(1)), None


def render(args, packages, cases, times, errors, rounds_done):
    lines = [f"# attn-run A/B, {datetime.date.today().isoformat()}", "",
             f"- device: `{args.device}`, {args.iters} timed runs per turn, "
             f"{rounds_done} of {args.rounds} rounds",
             f"- command: `{shlex.join(sys.argv)}`"]
    lines += [f"- {label}: `{path}`" for label, path in packages]
    labels = [label for label, _ in packages]
    base = labels[0]
    lines += ["", "ms, the best of the rounds' minimums (their range):", "",
              "| case | " + " | ".join(labels) + " | "
              + " | ".join(f"{label} / {base}" for label in labels[1:]) + " |",
              "|---" * (1 + 2 * len(labels) - 1) + "|"]
    for case in cases:
        cells, best = [], {}
        for label in labels:
            got = times[(case, label)]
            if errors.get((case, label)):
                cells.append(f"error: {errors[(case, label)]}")
            elif got:
                best[label] = min(got)
                cells.append(f"{min(got):.3f} ({min(got):.3f}-{max(got):.3f})")
            else:
                cells.append("-")
        ratios = [f"{best[base] / best[label]:.3f}x"
                  if base in best and label in best else "-"
                  for label in labels[1:]]
        lines.append(f"| {case} | " + " | ".join(cells + ratios) + " |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--package", action="append", required=True,
                        help="LABEL=FILE, two or more; the first is the base")
    parser.add_argument("--case", action="append", required=True,
                        help="a function and its attn-run arguments")
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iters", type=int, default=40)
    parser.add_argument("--attn-run", default="attn-run",
                        help="the attn-run to use (default: on PATH)")
    parser.add_argument("--out", help="markdown file, rewritten each round")
    args = parser.parse_args()
    packages = []
    for spec in args.package:
        label, sep, path = spec.partition("=")
        if not sep or not label or not os.path.isfile(path):
            parser.error(f"--package {spec}: want LABEL=FILE of a package")
        packages.append((label, path))
    if len(packages) < 2:
        parser.error("an A/B takes two packages or more")
    if args.rounds < 1 or args.iters < 1:
        parser.error("--rounds and --iters take positive counts")
    times = {(case, label): [] for case in args.case for label, _ in packages}
    errors = {}
    for round_index in range(args.rounds):
        order = packages if round_index % 2 == 0 else packages[::-1]
        for case in args.case:
            for label, path in order:
                if (case, label) in errors:
                    continue
                ms, error = time_case(args.attn_run, path, case, args.device,
                                      args.iters)
                if error:
                    errors[(case, label)] = error
                else:
                    times[(case, label)].append(ms)
        text = render(args, packages, args.case, times, errors,
                      round_index + 1)
        if args.out:
            with open(args.out, "w", encoding="utf-8") as out:
                out.write(text)
    print(text, end="")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
