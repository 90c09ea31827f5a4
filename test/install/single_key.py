"""Runs single_key (single_key.mlir) through an installed attnc Python
package and checks that every output row is the key's value row, and that the
package loaded the runtime library installed inside it.
Usage: python single_key.py PACKAGE"""

import ctypes
import os
import sys

import attnc

H, NQ, D = 2, 3, 8
q = (ctypes.c_float * (H * NQ * D))(*[(i % 7) - 3.0 for i in range(H * NQ * D)])
k = (ctypes.c_float * (H * D))(*[(i % 5) * 0.5 for i in range(H * D)])
v = (ctypes.c_float * (H * D))(*[i * 0.25 - 1.0 for i in range(H * D)])
out = (ctypes.c_float * (H * NQ * D))()


def tensor(buffer, rows):
    return attnc.Tensor(ctypes.addressof(buffer), "f32", (1, H, rows, D))


with attnc.Runtime("host") as rt, rt.load(sys.argv[1]) as package:
    package.function("single_key").call(
        [tensor(q, NQ), tensor(k, 1), tensor(v, 1)], [tensor(out, NQ)])
bad = [(h, i, d) for h in range(H) for i in range(NQ) for d in range(D)
       if abs(out[(h * NQ + i) * D + d] - v[h * D + d]) > 1e-5]
if bad:
    sys.exit(f"wrong output at {bad[:4]}")
# Installed, the package must use the library inside it.
package_dir = os.path.dirname(os.path.abspath(attnc.__file__))
library = os.path.abspath(attnc._capi.lib()._name)
if os.path.dirname(library) != package_dir:
    sys.exit(f"attnc in {package_dir} loaded {library}")
print(f"python: attnc and its runtime from {package_dir}, ok")
