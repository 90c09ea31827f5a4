//===- Norm.h - fp64 reference of norms and row sums ------------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// attn.rms_norm, attn.layer_norm, their gradients and attn.sum_rows on
// dense row-major rows of `width` elements, and attn.split_heads /
// attn.merge_heads, whose rotation works on a head's row, in double
// (pkg::NormSpec and the op
// kinds of pkg::OpSpec define them).
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_LIB_REFERENCE_NORM_H
#define ATTNC_LIB_REFERENCE_NORM_H

#include <cstdint>

namespace attnc::ref {

/// Rows [rows, width]; `centered` for LayerNorm (RMSNorm otherwise).
struct NormShape {
  int64_t rows = 0, width = 0;
  bool centered = false;
};

/// out [rows, width] and rstd [rows] of x [rows, width], with a bias
/// [width] (LayerNorm's, or null).
void normRows(const NormShape &shape, double epsilon, const double *x,
              const double *weight, const double *bias, double *out,
              double *rstd);

/// dx [rows, width] and the weight's partial sums [partials, width]
/// (row i into partial row i mod partials).
void normRowsGrad(const NormShape &shape, int64_t partials, const double *x,
                  const double *weight, const double *rstd, const double *dout,
                  double *dx, double *dweightPartial);

/// out [width] = the sum of the rows of in [rows, width].
void sumRows(int64_t rows, int64_t width, const double *in, double *out);

/// Shapes of split_heads and merge_heads: flat [B, N, H * D], heads
/// [B, H, N, D], rotary tables [N, half] (half 0 without tables).
struct HeadsShape {
  int64_t batch = 0, seq = 0, heads = 0, headDim = 0, half = 0;
};

/// split_heads (`split`) or merge_heads: `in` in one layout to `out` in
/// the other, rotating the first 2 * half dims of each head by `cos` and
/// `sin` (the transpose when merging).
void moveHeads(bool split, const HeadsShape &shape, const double *in,
               const double *cos, const double *sin, double *out);

} // namespace attnc::ref

#endif // ATTNC_LIB_REFERENCE_NORM_H
