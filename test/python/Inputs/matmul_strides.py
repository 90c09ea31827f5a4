"""Calls matmul_model.mlir's GEMMs on the host with dense operands (the
vector register tiles), with dense operands at an odd offset, and with one
operand stored column-major (the scalar loops, which the kernel takes when
an operand is not dense); checks each against a float64 product.

usage: matmul_strides.py PACKAGE [SEED]"""

import random
import sys

import attnc
import reference
from dlpack_producer import HostArray

ROWS, K, N = 37, 24, 40


def matrix(rng, shape, layout):
    """A random f32 matrix: "dense", "offset" (dense after 3 elements) or
    "columns" (column-major strides)."""
    values = reference.random_values(rng, shape[0] * shape[1])
    if layout == "columns":
        return HostArray("f32", shape, values, strides=(1, shape[0]))
    return HostArray("f32", shape, values, offset=3 if layout == "offset" else 0)


def product(a, b, m, k, n, transpose_a=False, transpose_b=False):
    """The float64 matrix product of row-major lists."""
    at = (lambda i, l: a[l * m + i]) if transpose_a else (lambda i, l: a[i * k + l])
    bt = (lambda l, j: b[j * k + l]) if transpose_b else (lambda l, j: b[l * n + j])
    return [sum(at(i, l) * bt(l, j) for l in range(k))
            for i in range(m) for j in range(n)]


def main():
    rng = random.Random(reference.seed_from_argv(2))
    ok = True
    with attnc.Runtime("host") as rt, rt.load(sys.argv[1]) as pkg:
        cases = [("linear", (ROWS, K), (N, K), (ROWS, N), dict(transpose_b=True)),
                 ("project", (ROWS, K), (K, N), (ROWS, N), {}),
                 ("contract", (ROWS, K), (ROWS, N), (K, N), dict(transpose_a=True))]
        for name, a_shape, b_shape, out_shape, form in cases:
            for a_layout, b_layout in [("dense", "dense"), ("offset", "offset"),
                                       ("columns", "dense"), ("dense", "columns")]:
                a = matrix(rng, a_shape, a_layout)
                b = matrix(rng, b_shape, b_layout)
                out = HostArray("f32", out_shape)
                pkg.function(name)(a, b, out=[out])
                m, n = out_shape
                k = a_shape[0] if form.get("transpose_a") else a_shape[1]
                ref = product(a.tolist(), b.tolist(), m, k, n, **form)
                ok &= reference.report(f"{name} {a_layout} {b_layout}",
                                       out.tolist(), ref, 1e-5)
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
