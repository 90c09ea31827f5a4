"""Runs the commands of docs/guide.md as written.

Every line of a fenced code block that starts with "$ " is a command. They
run in order, in a scratch directory where `examples` and `docs` lead to the
repository's, with the built tools first on PATH, so outputs of one command
(a package) are there for the next. A command must exit 0, except in the
"Errors" section, where it must exit 1 and print the lines the guide shows
after it. Commands that need a GPU (`--device cuda`) are listed as skipped;
those that need a CUDA toolkit (`--target=sm_90a`) are skipped where there
is none.

usage: run_guide_commands.py SOURCE_ROOT TOOLS_DIR"""

import os
import re
import shlex
import subprocess
import sys
import tempfile


def commands(guide):
    """(section, command, shown output lines) of every "$ " line."""
    section, fenced, found, shown = "", False, [], None
    for line in open(guide, encoding="utf-8").read().splitlines():
        if line.startswith("## "):
            section = line[3:].strip()
        if line.startswith("```"):
            fenced, shown = not fenced, None
            continue
        if not fenced:
            continue
        if line.startswith("$ "):
            command = re.sub(r"\s+#.*$", "", line[2:]).strip()
            shown = []
            found.append((section, command, shown))
        elif shown is not None and line.strip():
            shown.append(line)
    return found


def has_cuda_toolkit():
    root = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") \
        or "/usr/local/cuda"
    return os.path.exists(os.path.join(root, "bin", "ptxas"))


def main():
    source_root, tools = sys.argv[1], sys.argv[2]
    env = dict(os.environ, PATH=tools + os.pathsep + os.environ["PATH"])
    problems = 0
    with tempfile.TemporaryDirectory(prefix="attnc-guide-") as work:
        for name in ("examples", "docs"):
            os.symlink(os.path.join(source_root, name),
                       os.path.join(work, name))
        for section, command, shown in commands(
                os.path.join(source_root, "docs", "guide.md")):
            if "--device cuda" in command or (
                    "sm_90a" in command and not has_cuda_toolkit()):
                print(f"skipped: {command}")
                continue
            result = subprocess.run(shlex.split(command), cwd=work, env=env,
                                    capture_output=True, text=True,
                                    check=False)
            output = result.stdout + result.stderr
            expected = 1 if section == "Errors" else 0
            missing = [line for line in shown if line not in output] \
                if section == "Errors" else []
            if result.returncode != expected or missing:
                problems += 1
                print(f"FAILED (exit {result.returncode}, expected "
                      f"{expected}): {command}")
                for line in missing:
                    print(f"  the guide shows, the tool did not print: {line}")
                print("  " + output.strip().replace("\n", "\n  ")[:2000])
            else:
                print(f"ok: {command}")
    print(f"{problems} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
