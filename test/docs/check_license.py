"""Checks that the license the source headers name is the one LICENSE holds:
- LICENSE is the Apache License 2.0 (its terms, whitespace aside, are the
  published text's);
- every tracked file with an SPDX license line names Apache-2.0 alone;
- every C, C++, CUDA and TableGen source and header under compiler/,
  runtime/, lib/, dialects/ and tools/ has one in its header.
usage: check_license.py REPO_ROOT"""

import hashlib
import re
import subprocess
import sys

root = sys.argv[1]
# sha256 of the terms (from "TERMS AND CONDITIONS" to "END OF TERMS AND
# CONDITIONS") of https://www.apache.org/licenses/LICENSE-2.0.txt, each run
# of whitespace made one space.
APACHE_2_TERMS = "efc42672d5e2255417ab2bbcef2a39e8400f0ab6d32f4c790d95a3640087923c"
# Spelled in two parts so that this file has no license line of its own.
TAG = "SPDX-" + "License-Identifier:"
REQUIRED_DIRS = ("compiler/", "runtime/", "lib/", "dialects/", "tools/")
REQUIRED = re.compile(r"\.(c|cpp|cu|h|def|td)(\.in)?$")
HEADER_LINES = 10

problems = []
try:
    with open(f"{root}/LICENSE", encoding="utf-8") as f:
        license_text = f.read()
except FileNotFoundError:
    license_text = ""
start = license_text.find("TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION")
end = license_text.find("END OF TERMS AND CONDITIONS")
terms = " ".join(license_text[start:end].split())
if not (license_text.lstrip().startswith("Apache License\n")
        and "Version 2.0, January 2004" in license_text and 0 <= start < end
        and hashlib.sha256(terms.encode()).hexdigest() == APACHE_2_TERMS):
    problems.append("LICENSE is not the text of the Apache License 2.0")

files = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True,
                       check=True).stdout.decode().split("\0")
checked = 0
for path in filter(None, files):
    try:
        with open(f"{root}/{path}", encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
        continue  # binary, or deleted in the work tree
    tagged = [(n, line) for n, line in enumerate(lines, 1) if TAG in line]
    for n, line in tagged:
        # The expression ends the line, or a comment's closing characters do.
        expression = re.search(re.escape(TAG) + r"\s*(.*?)\s*(\*/|\*\||-->)?\s*$",
                               line).group(1)
        if expression != "Apache-2.0":
            problems.append(f"{path}:{n}: license '{expression}', not Apache-2.0")
    if path.startswith(REQUIRED_DIRS) and REQUIRED.search(path):
        checked += 1
        if not any(n <= HEADER_LINES for n, _ in tagged):
            problems.append(f"{path}: no {TAG} line in its first {HEADER_LINES} lines")

for problem in problems:
    print(problem)
print(f"{checked} sources that need a license line, {len(problems)} problems")
sys.exit(1 if problems else 0)
