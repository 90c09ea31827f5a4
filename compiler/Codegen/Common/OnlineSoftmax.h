//===- OnlineSoftmax.h - The flash-attention recurrence ---------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Every attention kernel (host, scalar GPU, mma.sync, wgmma) runs the same
// recurrence per query row over key tiles:
//
//   s      = score(q·k) · factor, log2 units (ScoreModel)
//   m'     = max(m, rowmax s)               (updateRow)
//   p      = exp2(s - m'),  a = exp2(m - m')
//   l'     = a l + rowsum p,  acc' = a acc + p V
//   out    = acc / l,  lse = (m + log2 l) ln 2   (finishRow)
//
// What differs is where a thread's scores live: a row of an f32 tile in
// memory (one thread per row), or mma fragments in registers spread over a
// quad of lanes. ScoreRows is that layout description; the kernels provide
// it and these functions do the arithmetic.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_CODEGEN_COMMON_ONLINESOFTMAX_H
#define ATTNC_COMPILER_CODEGEN_COMMON_ONLINESOFTMAX_H

#include "dialects/attn/AttnOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace attnc {

/// log2 e: scores and lse in log2 units are these times their natural value.
inline constexpr double kLog2E = 1.4426950408889634;

/// 2^x as the kernel computes it (math.exp2, or the fast attngpu.ex2).
using Exp2Fn = llvm::function_ref<mlir::Value(mlir::Value)>;

/// How raw dot products q·k become softmax inputs in log2 units: score
/// times `factor`, which applies once per row max and once per exponent, as
/// the multiplier of one fma (so it must be positive). Without a score
/// region and with a positive scale the scores stay raw and `factor` is
/// scale · log2 e. With a score region each score is scaled and passed
/// through the region, and `factor` is log2 e, except for a region that
/// adds a product to its score (s ± a · b: ALiBi's bias) under a positive
/// power-of-two scale c: it reads the raw score with a divided by c, and
/// `factor` is c · log2 e, which gives every score times 1/c exactly (one
/// multiply per element less). Otherwise (a scale of 0 or less) each score
/// is multiplied by scale · log2 e, and `factor` is 1.
class ScoreModel {
public:
  explicit ScoreModel(mlir::attn::AttentionScoringOpInterface op);

  /// The score of one (row, key) element; `indices` are (b, h, q_idx,
  /// k_idx) as index values.
  mlir::Value score(mlir::OpBuilder &b, mlir::Location loc, mlir::Value dot,
                    mlir::ValueRange indices) const;
  mlir::Value factor(mlir::OpBuilder &b, mlir::Location loc) const;

private:
  /// The region's final s ± a · b, when the scale can stay outside it.
  struct ScaledBias {
    mlir::Operation *combine, *product;
    unsigned dividedOperand; // of `product`: the one not read per key
  };
  static std::optional<ScaledBias>
  scaledBias(mlir::attn::AttentionScoringOpInterface op);
  mlir::Value biasedScore(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value dot, mlir::ValueRange indices) const;

  mutable mlir::attn::AttentionScoringOpInterface op; // accessors are not const
  bool folded;
  std::optional<ScaledBias> bias;
};

/// One thread's scores of the query rows it holds, in one key tile. A row
/// slot is one of those rows (the thread may hold a part of it).
class ScoreRows {
public:
  virtual ~ScoreRows() = default;
  /// The max of row slot `row` over the whole tile (across the threads that
  /// share the row), in the model's raw units.
  virtual mlir::Value rowMax(int64_t row) = 0;
  /// Replaces each of this thread's scores s of row slot `row` by
  /// exp2(s · factor + negPivot) and returns this thread's sum of them.
  virtual mlir::Value exponentiate(int64_t row, mlir::Value factor,
                                   mlir::Value negPivot) = 0;
};

/// The running max (log2 units) and sum of exponentials of a row.
struct SoftmaxRow {
  mlir::Value max, sum;
};

/// One tile's update of row slot `row`: the next running max and sum, and
/// `alpha`, the factor that rescales the row's accumulator. While every key
/// so far is masked the exponents are taken against 0, so -inf - -inf never
/// makes a NaN. With a positive `slack` (log2 units) the max stays where it
/// is unless the tile's exceeds it by more than that: exponents then reach
/// up to 2^slack, and alpha is exactly 1 for most tiles, so a kernel can
/// skip rescaling its accumulator (the running max needs only to bound the
/// exponents, not to be the true max).
struct SoftmaxUpdate {
  SoftmaxRow next;
  mlir::Value alpha;
};
SoftmaxUpdate updateRow(mlir::OpBuilder &b, mlir::Location loc,
                        ScoreRows &scores, int64_t row, SoftmaxRow old,
                        mlir::Value factor, Exp2Fn exp2, double slack = 0.0);

/// The end of a row whose sum is complete (summed across threads): the
/// reciprocal of the sum to normalize the accumulator with, and the lse in
/// natural log; 0 and -inf for a row that no key reached.
struct RowResult {
  mlir::Value inverseSum, lse;
};
RowResult finishRow(mlir::OpBuilder &b, mlir::Location loc, SoftmaxRow row);

/// `score` where the mask of the attention allows (q_idx, k_idx) and
/// `inBounds` holds (null: always), -inf elsewhere. `indices` are (b, h,
/// q_idx, k_idx); `diagonal` is the mask's diagonalOffset. Without
/// `withRegion` the mask region is taken to allow (TileClass's
/// regionMayBlock false).
mlir::Value maskScore(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::attn::AttentionScoringOpInterface op,
                      mlir::Value diagonal, mlir::Value score,
                      mlir::ValueRange indices, mlir::Value inBounds,
                      bool withRegion = true);

} // namespace attnc

#endif // ATTNC_COMPILER_CODEGEN_COMMON_ONLINESOFTMAX_H
