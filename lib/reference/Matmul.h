//===- Matmul.h - fp64 reference of attn.matmul -----------------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The matrix product of pkg::MatmulSpec on the matrix views of its tensors
// (a tensor's leading dims are its rows), in double.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_LIB_REFERENCE_MATMUL_H
#define ATTNC_LIB_REFERENCE_MATMUL_H

#include "attnc/Status.h"
#include "attnc/package/Package.h"

#include <cstdint>
#include <vector>

namespace attnc::ref {

/// The extents of out = A B: A is [m, k], B is [k, n].
struct MatmulShape {
  int64_t m = 0, k = 0, n = 0;
};

/// The product's extents from the tensors' shapes, or an error when they do
/// not fit `spec` (see pkg::MatmulSpec): "shapes [2, 3], [4, 5] -> [2, 5]
/// do not fit a matmul: a [rows, K], b [K, N] -> [rows, N]".
StatusOr<MatmulShape> matmulShape(const pkg::MatmulSpec &spec,
                                  const std::vector<int64_t> &a,
                                  const std::vector<int64_t> &b,
                                  const std::vector<int64_t> &out);

/// out[i, j] = sum_l A[i, l] B[l, j] for the dense row-major `a` (m x k,
/// or k x m with transposeA) and `b` (k x n, or n x k with transposeB),
/// each sum in order of l. Rows run in parallel (parallelFor), counted
/// into the calling thread's Progress.
void matmul(const pkg::MatmulSpec &spec, const MatmulShape &shape,
            const double *a, const double *b, double *out);

} // namespace attnc::ref

#endif // ATTNC_LIB_REFERENCE_MATMUL_H
