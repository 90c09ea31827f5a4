//===- Norm.cpp - fp64 reference of norms and row sums --------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "lib/reference/Norm.h"

#include <cmath>

namespace attnc::ref {

/// The mean of a row (0 unless centred).
static double rowMean(const NormShape &shape, const double *row) {
  if (!shape.centered)
    return 0;
  double sum = 0;
  for (int64_t d = 0; d < shape.width; ++d)
    sum += row[d];
  return sum / static_cast<double>(shape.width);
}

void normRows(const NormShape &shape, double epsilon, const double *x,
              const double *weight, const double *bias, double *out,
              double *rstd) {
  const int64_t width = shape.width;
  for (int64_t r = 0; r < shape.rows; ++r) {
    const double *row = x + r * width;
    double mean = rowMean(shape, row), squares = 0;
    for (int64_t d = 0; d < width; ++d)
      squares += (row[d] - mean) * (row[d] - mean);
    double scale = 1 / std::sqrt(squares / width + epsilon);
    rstd[r] = scale;
    for (int64_t d = 0; d < width; ++d)
      out[r * width + d] =
          (row[d] - mean) * scale * weight[d] + (bias ? bias[d] : 0);
  }
}

void normRowsGrad(const NormShape &shape, int64_t partials, const double *x,
                  const double *weight, const double *rstd, const double *dout,
                  double *dx, double *dweightPartial) {
  const int64_t width = shape.width;
  for (int64_t i = 0; i < partials * width; ++i)
    dweightPartial[i] = 0;
  for (int64_t r = 0; r < shape.rows; ++r) {
    const double *row = x + r * width, *dy = dout + r * width;
    double mean = rowMean(shape, row);
    double dot = 0, gSum = 0; // sums of g * xhat and of g
    for (int64_t d = 0; d < width; ++d) {
      dot += dy[d] * weight[d] * (row[d] - mean) * rstd[r];
      gSum += dy[d] * weight[d];
    }
    double gMean = shape.centered ? gSum / static_cast<double>(width) : 0;
    double *partial = dweightPartial + (r % partials) * width;
    for (int64_t d = 0; d < width; ++d) {
      double xhat = (row[d] - mean) * rstd[r];
      dx[r * width + d] = rstd[r] * (dy[d] * weight[d] - gMean -
                                     xhat * dot / static_cast<double>(width));
      partial[d] += dy[d] * xhat;
    }
  }
}

void sumRows(int64_t rows, int64_t width, const double *in, double *out) {
  for (int64_t d = 0; d < width; ++d)
    out[d] = 0;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t d = 0; d < width; ++d)
      out[d] += in[r * width + d];
}

void moveHeads(bool split, const HeadsShape &shape, const double *in,
               const double *cos, const double *sin, double *out) {
  const int64_t d = shape.headDim, h = shape.heads, n = shape.seq;
  for (int64_t b = 0; b < shape.batch; ++b)
    for (int64_t head = 0; head < h; ++head)
      for (int64_t pos = 0; pos < n; ++pos) {
        int64_t flat = (b * n + pos) * h * d + head * d;
        int64_t heads = ((b * h + head) * n + pos) * d;
        const double *from = in + (split ? flat : heads);
        double *to = out + (split ? heads : flat);
        for (int64_t i = 0; i < d; ++i)
          to[i] = from[i];
        // The transpose of a rotation by (cos, sin) is one by (cos, -sin).
        double sign = split ? 1 : -1;
        for (int64_t i = 0; i < shape.half; ++i) {
          double c = cos[pos * shape.half + i],
                 s = sign * sin[pos * shape.half + i];
          double x1 = from[i], x2 = from[i + shape.half];
          to[i] = x1 * c - x2 * s;
          to[i + shape.half] = x2 * c + x1 * s;
        }
      }
}

} // namespace attnc::ref
