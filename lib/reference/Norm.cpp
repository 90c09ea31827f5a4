//===- Norm.cpp - fp64 reference of RMSNorm and row sums ------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "lib/reference/Norm.h"

#include <cmath>

namespace attnc::ref {

void rmsNorm(int64_t rows, int64_t width, double epsilon, const double *x,
             const double *weight, double *out, double *rstd) {
  for (int64_t r = 0; r < rows; ++r) {
    const double *row = x + r * width;
    double squares = 0;
    for (int64_t d = 0; d < width; ++d)
      squares += row[d] * row[d];
    double scale = 1 / std::sqrt(squares / width + epsilon);
    rstd[r] = scale;
    for (int64_t d = 0; d < width; ++d)
      out[r * width + d] = row[d] * scale * weight[d];
  }
}

void rmsNormGrad(int64_t rows, int64_t width, int64_t partials, const double *x,
                 const double *weight, const double *rstd, const double *dout,
                 double *dx, double *dweightPartial) {
  for (int64_t i = 0; i < partials * width; ++i)
    dweightPartial[i] = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const double *row = x + r * width, *dy = dout + r * width;
    double dot = 0; // sum of g * xhat
    for (int64_t d = 0; d < width; ++d)
      dot += dy[d] * weight[d] * row[d] * rstd[r];
    double *partial = dweightPartial + (r % partials) * width;
    for (int64_t d = 0; d < width; ++d) {
      double xhat = row[d] * rstd[r];
      dx[r * width + d] = rstd[r] * (dy[d] * weight[d] -
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

} // namespace attnc::ref
