"""Checks that the user docs say what the tools do:
- every pass and pipeline flag the docs give attn-opt exists, and every
  attnc pipeline attn-opt registers is in the guide's table;
- every flag the docs give attnc and attn-run exists;
- every repository path the docs name exists (a source file may be named
  without its extension);
- no README.md or docs/ page points outside the repository: no link or
  path through `../` or an absolute path, no `shared/` path, no "steering
  repo".
usage: check_docs.py REPO_ROOT ATTNC ATTN_OPT ATTN_RUN"""

import glob
import os
import re
import subprocess
import sys

root, attnc, attn_opt, attn_run = sys.argv[1:5]
DOCS = ["README.md", "docs/guide.md", "docs/design.md", "docs/runtime.md",
        "bench/README.md", "bench/NOTES.md"]
PATH_ROOTS = ("examples", "test", "bench", "scripts", "python", "runtime",
              "lib", "compiler", "tools", "dialects", "docs", "cmake")


def help_flags(tool):
    text = subprocess.run([tool, "--help"], capture_output=True,
                          text=True).stdout
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", text))


def read(path):
    with open(f"{root}/{path}", encoding="utf-8") as f:
        return f.read()


problems = []
texts = {path: read(path) for path in DOCS}
guide = texts["docs/guide.md"]

opt_flags = help_flags(attn_opt)
documented_passes = set()
for text in texts.values():
    documented_passes |= set(
        re.findall(r"`(--(?:attn|attnc|attngpu|convert-attn)[a-z0-9-]*)", text))
for flag in sorted(documented_passes - opt_flags):
    problems.append(f"attn-opt has no {flag}, which the docs name")
for flag in sorted(f for f in opt_flags if f.startswith("--attnc-")):
    if not re.search(re.escape(flag) + r"(?![\w-])", guide):
        problems.append(f"the guide's attn-opt row lacks the pipeline {flag}")

for tool, name in ((attnc, "attnc"), (attn_run, "attn-run")):
    flags = help_flags(tool)
    # Flags in the tools table row of this tool.
    row = next((line for line in guide.splitlines()
                if line.startswith(f"| `{name} ")), "")
    for flag in sorted(set(re.findall(r"(--[a-z][a-z0-9-]*)", row)) - flags):
        problems.append(f"{name} has no {flag}, which the guide's table names")

for path, text in texts.items():
    for ref in sorted(set(re.findall(r"`([a-z][\w./-]*)`", text))):
        if ref.split("/")[0] in PATH_ROOTS and "/" in ref and "*" not in ref:
            base = f"{root}/{ref.rstrip('/')}"
            if not any(os.path.exists(base + ext) for ext in ("", ".h", ".cpp")):
                problems.append(f"{path} names {ref}, which does not exist")

# Links and paths that leave the repository: what they name is not shipped.
OUTSIDE = (
    (r"(?<![\w.])\.\./", "a path through ../"),
    (r"(?<![\w./-])shared/", "a shared/ path"),
    (r"(?i)steering\s+repo", "the steering repo"),
)
for path in sorted(set(DOCS) | {"README.md"} | {
        os.path.relpath(doc, root)
        for doc in glob.glob(f"{root}/docs/**/*.md", recursive=True)}):
    text = texts.get(path) or read(path)
    for number, line in enumerate(text.splitlines(), 1):
        local = re.sub(r"[a-z][a-z0-9+.-]*://\S+", "", line)  # not URLs
        for pattern, what in OUTSIDE:
            if re.search(pattern, local):
                problems.append(f"{path}:{number} points outside the repository"
                                f" ({what})")
        for target in re.findall(r"\]\(([^)\s]+)", line):
            if re.match(r"[a-z][a-z0-9+.-]*:|#", target):
                continue  # a URL or an anchor on the page
            resolved = os.path.normpath(
                os.path.join(os.path.dirname(path), target.split("#")[0]))
            if os.path.isabs(target) or resolved.startswith(".."):
                problems.append(f"{path}:{number} links {target}, outside the"
                                f" repository")
            elif not os.path.exists(f"{root}/{resolved}"):
                problems.append(f"{path}:{number} links {target}, which does"
                                f" not exist")

for problem in problems:
    print(problem)
print(f"{len(problems)} problems")
sys.exit(1 if problems else 0)
