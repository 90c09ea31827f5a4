//===- AttentionPairs.h - What the attention references share --*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/reference: the pieces that the forward (Attention.cpp)
// and backward (AttentionGrad.cpp) references share, so that both decide
// which (query, key) pairs are allowed and what their scores are the same
// way, check their arguments alike and spread heads over threads alike.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_LIB_REFERENCE_ATTENTIONPAIRS_H
#define ATTNC_LIB_REFERENCE_ATTENTIONPAIRS_H

#include "lib/reference/Attention.h"
#include "lib/reference/Region.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace attnc::ref::detail {

/// Checks that every extent is >= 0 and headsQ is a multiple of headsKV.
Status checkShape(const AttentionShape &shape);

/// An array an attention function reads or writes.
struct ArrayArg {
  const char *name;
  const void *data;
  std::vector<int64_t> shape;
};

/// Checks that each array's element count fits in int64 ("attention shape:
/// q is too large") and that a non-empty array has data ("attention: k is
/// null").
Status checkArrays(const std::vector<ArrayArg> &arrays);

/// The index of `head`'s first element in a [B, H, N, D] array, or of its
/// first row in a [B, H, N] one (dim 1).
inline int64_t headOffset(int64_t b, int64_t heads, int64_t head, int64_t seq,
                          int64_t dim) {
  return (b * heads + head) * seq * dim;
}

/// sum a[d] * b[d] over d < n.
double dot(const double *a, const double *b, int64_t n);

/// One (query, key) pair: batch, query head, query and key index.
struct PairIndex {
  int64_t b, h, i, j;
};

/// "b=0 h=1 q_idx=2 k_idx=3", for messages.
std::string position(const PairIndex &pair);

/// An allowed pair's final score and its derivative in the scaled score.
struct PairScore {
  double score = 0;
  double derivative = 1;
};

/// The rules of an AttentionSpec for single pairs, with its regions checked.
class PairRules {
public:
  /// Checks the mask region (4 arguments, yields i1) and the score region
  /// (5 arguments, yields a float); with `differentiable`, also that the
  /// score region has a derivative in its score. Messages start with
  /// "mask region" or "score region". `shape` places a bottom-right
  /// diagonal. The regions read `captures` (RegionEvaluator::checkCaptures),
  /// which must outlive the rules.
  static StatusOr<PairRules> create(const pkg::AttentionSpec &spec,
                                    const AttentionShape &shape,
                                    bool differentiable,
                                    const std::vector<CaptureView> &captures);

  double scale() const { return scaleFactor; }

  /// Whether query i may attend key j: causal, window, then the mask.
  Status isAllowed(const PairIndex &pair, bool &allowed) const;

  /// The score of an allowed pair whose scaled q·k is `raw`: the score
  /// region's result, or `raw` without one. With `differentiate`, also its
  /// derivative in `raw` (else left 1). Region errors name the position.
  Status score(const PairIndex &pair, double raw, bool differentiate,
               PairScore &result) const;

private:
  PairRules(const pkg::AttentionSpec &spec, const AttentionShape &shape);

  double scaleFactor;
  bool causal;
  int64_t diagonal; // the shorthands compare k_idx with q_idx + diagonal
  std::optional<int64_t> windowLeft, windowRight;
  std::optional<RegionEvaluator> mask, scoreRegion;
  std::vector<CaptureView> captures;
};

} // namespace attnc::ref::detail

#endif // ATTNC_LIB_REFERENCE_ATTENTIONPAIRS_H
