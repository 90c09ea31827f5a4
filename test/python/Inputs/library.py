"""Loads the runtime library and prints where from, or the error. `import
attnc` must work without the library; loading happens on first use.

usage: library.py [--incompatible]
  --incompatible: point ATTNC_RUNTIME_LIBRARY at libm (a library that is not
  libattnrt)."""

import ctypes.util
import os
import sys

import attnc
import attnc._capi

print("import: ok")
if sys.argv[1:] == ["--incompatible"]:
    os.environ["ATTNC_RUNTIME_LIBRARY"] = ctypes.util.find_library("m")
try:
    attnc.Runtime("host").close()
except RuntimeError as e:
    print(f"RuntimeError: {e}")
else:
    print(f"loaded: {attnc._capi.lib()._name}")
