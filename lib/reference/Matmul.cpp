//===- Matmul.cpp - fp64 reference of attn.matmul -------------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "lib/reference/Matmul.h"

#include "lib/reference/Progress.h"
#include "lib/support/Text.h"

#include <algorithm>
#include <numeric>
#include <string>

namespace attnc::ref {

namespace {

int64_t rowsOf(const std::vector<int64_t> &shape) {
  return std::accumulate(shape.begin(), shape.end() - 1, int64_t{1},
                         std::multiplies<int64_t>());
}

} // namespace

StatusOr<MatmulShape> matmulShape(const pkg::MatmulSpec &spec,
                                  const std::vector<int64_t> &a,
                                  const std::vector<int64_t> &b,
                                  const std::vector<int64_t> &out) {
  const char *form = spec.transposeA   ? "a [rows, M], b [rows, N] -> [M, N]"
                     : spec.transposeB ? "a [rows, K], b [N, K] -> [rows, N]"
                                       : "a [rows, K], b [K, N] -> [rows, N]";
  auto unfit = [&] {
    return Status::error("shapes " + shapeText(a) + ", " + shapeText(b) +
                         " -> " + shapeText(out) +
                         " do not fit a matmul: " + form);
  };
  if (a.size() < 2 || b.empty() || (spec.transposeA && spec.transposeB))
    return unfit();
  MatmulShape shape;
  std::vector<int64_t> expected;
  if (spec.transposeA) {
    if (!std::equal(a.begin(), a.end() - 1, b.begin(), b.end() - 1))
      return unfit();
    shape = {a.back(), rowsOf(a), b.back()};
    expected = {shape.m, shape.n};
  } else {
    if (b.size() != 2 || b[spec.transposeB ? 1 : 0] != a.back())
      return unfit();
    shape = {rowsOf(a), a.back(), b[spec.transposeB ? 0 : 1]};
    expected.assign(a.begin(), a.end() - 1);
    expected.push_back(shape.n);
  }
  if (out != expected)
    return unfit();
  return shape;
}

namespace {

/// Rows of the product per task of the parallel loop: enough products to
/// outweigh a task's cost.
constexpr int64_t kRowsPerTask = 16;

/// Row i of the product (see matmul).
void productRow(const pkg::MatmulSpec &spec, const MatmulShape &shape,
                const double *a, const double *b, int64_t i, double *row) {
  auto at = [&](int64_t l) {
    return spec.transposeA ? a[l * shape.m + i] : a[i * shape.k + l];
  };
  if (spec.transposeB) {
    // Both operands run along l: a dot product per element.
    for (int64_t j = 0; j < shape.n; ++j) {
      double sum = 0;
      for (int64_t l = 0; l < shape.k; ++l)
        sum += at(l) * b[j * shape.k + l];
      row[j] = sum;
    }
    return;
  }
  // b runs along j: the row of sums updated per l adds each element's
  // products in the dot product's order, so the result is the same to the
  // bit, without a stride of n per product.
  std::fill(row, row + shape.n, 0.0);
  for (int64_t l = 0; l < shape.k; ++l) {
    double x = at(l);
    const double *bRow = b + l * shape.n;
    for (int64_t j = 0; j < shape.n; ++j)
      row[j] += x * bRow[j];
  }
}

} // namespace

void matmul(const pkg::MatmulSpec &spec, const MatmulShape &shape,
            const double *a, const double *b, double *out) {
  int64_t tasks = (shape.m + kRowsPerTask - 1) / kRowsPerTask;
  Status status = parallelFor(tasks, [&](int64_t task) {
    int64_t end = std::min(shape.m, (task + 1) * kRowsPerTask);
    for (int64_t i = task * kRowsPerTask; i < end; ++i)
      productRow(spec, shape, a, b, i, out + i * shape.n);
    return Status::ok();
  });
  (void)status; // no task fails
}

} // namespace attnc::ref
