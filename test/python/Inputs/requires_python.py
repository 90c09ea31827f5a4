"""Checks that pyproject.toml's requires-python admits no Python that cannot
run the repository's Python code: every tracked python/ file parses with the
grammar of the oldest Python it admits, and imports no standard module newer
than that (unless it catches the ImportError).
usage: requires_python.py REPO_ROOT"""

import ast
import re
import subprocess
import sys
import tomllib

# Standard modules newer than any Python 3 a requires-python might admit.
NEW_MODULES = {"graphlib": (3, 9), "zoneinfo": (3, 9), "tomllib": (3, 11)}

root = sys.argv[1]
with open(f"{root}/pyproject.toml", "rb") as f:
    spec = tomllib.load(f)["project"]["requires-python"]
match = re.fullmatch(r"\s*>=\s*3\.(\d+)\s*", spec)
if not match:
    sys.exit(f"requires-python {spec!r} is not '>=3.MINOR'")
oldest = (3, int(match.group(1)))
print(f"requires-python: >={oldest[0]}.{oldest[1]}")


def guarded(node, parents):
    """Whether an import sits in a try that catches its ImportError."""
    for parent in parents.get(node, ()):
        for handler in getattr(parent, "handlers", ()):
            names = ast.unparse(handler.type) if handler.type else "Exception"
            if re.search(r"\b(ImportError|ModuleNotFoundError|Exception)\b", names):
                return True
    return False


problems = []
files = subprocess.run(["git", "-C", root, "ls-files", "python/*.py"],
                       capture_output=True, text=True, check=True).stdout.split()
for path in files:
    with open(f"{root}/{path}", encoding="utf-8") as f:
        source = f.read()
    try:
        tree = ast.parse(source, path, feature_version=oldest)
    except SyntaxError as e:
        problems.append(f"{path}:{e.lineno}: not Python {oldest[0]}.{oldest[1]}"
                        f" syntax: {e.msg}")
        continue
    parents = {}  # node -> the try statements around it
    for node in ast.walk(tree):
        if isinstance(node, ast.Try):
            for inner in node.body:
                for child in ast.walk(inner):
                    parents.setdefault(child, []).append(node)
    for node in ast.walk(tree):
        modules = ([a.name for a in node.names] if isinstance(node, ast.Import)
                   else [node.module or ""] if isinstance(node, ast.ImportFrom)
                   else [])
        for module in modules:
            needs = NEW_MODULES.get(module.split(".")[0])
            if needs and needs > oldest and not guarded(node, parents):
                problems.append(f"{path}:{node.lineno}: imports {module}, new in"
                                f" Python {needs[0]}.{needs[1]}")

for problem in problems:
    print(problem)
print(f"{len(files)} files, {len(problems)} problems")
sys.exit(1 if problems else 0)
