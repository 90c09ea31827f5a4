//===- Attention.cpp - fp64 reference attention ---------------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "lib/reference/Attention.h"

#include "lib/reference/AttentionPairs.h"
#include "lib/reference/Progress.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace attnc::ref {

namespace {

using detail::PairIndex;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Everything one query head needs, validated.
struct Problem {
  const AttentionShape &shape;
  const double *q, *k, *v;
  double *out, *lse;
  detail::PairRules rules;
};

/// Fills `scores` (seqK entries) with the scores of query row i of head h
/// against every key, -inf where the pair is not allowed; gives the largest
/// score that is not NaN and whether one is NaN.
Status scoreRow(const Problem &p, int64_t b, int64_t h, int64_t i,
                std::vector<double> &scores, double &maxScore, bool &sawNaN) {
  const AttentionShape &s = p.shape;
  const int64_t kvHead = h / (s.headsQ / s.headsKV);
  const double *qRow = p.q +
                       detail::headOffset(b, s.headsQ, h, s.seqQ, s.headDim) +
                       i * s.headDim;
  const double *kHead =
      p.k + detail::headOffset(b, s.headsKV, kvHead, s.seqK, s.headDim);
  maxScore = -kInf;
  sawNaN = false;
  for (int64_t j = 0; j < s.seqK; ++j) {
    const PairIndex pair{b, h, i, j};
    bool allowed;
    if (Status st = p.rules.isAllowed(pair, allowed); !st)
      return st;
    scores[j] = -kInf;
    if (!allowed)
      continue;
    const double raw =
        p.rules.scale() * detail::dot(qRow, kHead + j * s.headDim, s.headDim);
    detail::PairScore score;
    if (Status st = p.rules.score(pair, raw, /*differentiate=*/false, score);
        !st)
      return st;
    scores[j] = score.score;
    if (std::isnan(scores[j]))
      sawNaN = true;
    else
      maxScore = std::max(maxScore, scores[j]);
  }
  return Status::ok();
}

/// Writes the softmax-weighted sum of the values of `vHead` into `outRow`
/// and returns the row's lse.
double softmaxRow(const AttentionShape &s, const std::vector<double> &scores,
                  double maxScore, bool sawNaN, const double *vHead,
                  double *outRow) {
  if (sawNaN || maxScore == -kInf) {
    // Nothing allowed: out 0, lse -inf. A NaN score poisons the row.
    std::fill(outRow, outRow + s.headDimV, sawNaN ? kNaN : 0.0);
    return sawNaN ? kNaN : -kInf;
  }
  // Subtracting the row max keeps exp() in range.
  std::fill(outRow, outRow + s.headDimV, 0.0);
  double sum = 0;
  for (int64_t j = 0; j < s.seqK; ++j) {
    if (scores[j] == -kInf)
      continue;
    double weight = std::exp(scores[j] - maxScore);
    sum += weight;
    const double *vRow = vHead + j * s.headDimV;
    for (int64_t d = 0; d < s.headDimV; ++d)
      outRow[d] += weight * vRow[d];
  }
  for (int64_t d = 0; d < s.headDimV; ++d)
    outRow[d] /= sum;
  return maxScore + std::log(sum);
}

/// Computes every row of query head h of batch b.
Status computeHead(const Problem &p, int64_t b, int64_t h) {
  const AttentionShape &s = p.shape;
  const int64_t kvHead = h / (s.headsQ / s.headsKV);
  const double *vHead =
      p.v + detail::headOffset(b, s.headsKV, kvHead, s.seqK, s.headDimV);
  double *outHead =
      p.out + detail::headOffset(b, s.headsQ, h, s.seqQ, s.headDimV);
  std::vector<double> scores(s.seqK);
  for (int64_t i = 0; i < s.seqQ; ++i) {
    double maxScore;
    bool sawNaN;
    if (Status st = scoreRow(p, b, h, i, scores, maxScore, sawNaN); !st)
      return st;
    double rowLse = softmaxRow(s, scores, maxScore, sawNaN, vHead,
                               outHead + i * s.headDimV);
    if (p.lse)
      p.lse[detail::headOffset(b, s.headsQ, h, s.seqQ, 1) + i] = rowLse;
  }
  return Status::ok();
}

} // namespace

Status attentionForward(const pkg::AttentionSpec &spec,
                        const AttentionShape &shape, const double *q,
                        const double *k, const double *v, double *out,
                        double *lse, const std::vector<CaptureView> &captures) {
  try {
    const AttentionShape &s = shape;
    if (Status st = detail::checkShape(s); !st)
      return st;
    if (Status st = detail::checkArrays({
            {"q", q, {s.batch, s.headsQ, s.seqQ, s.headDim}},
            {"k", k, {s.batch, s.headsKV, s.seqK, s.headDim}},
            {"v", v, {s.batch, s.headsKV, s.seqK, s.headDimV}},
            {"out", out, {s.batch, s.headsQ, s.seqQ, s.headDimV}},
        });
        !st)
      return st;
    StatusOr<detail::PairRules> rules =
        detail::PairRules::create(spec, s, /*differentiable=*/false, captures);
    if (!rules)
      return rules.status();
    const Problem problem{shape, q, k, v, out, lse, std::move(*rules)};
    return parallelFor(s.batch * s.headsQ, [&](int64_t head) {
      return computeHead(problem, head / s.headsQ, head % s.headsQ);
    });
  } catch (const std::exception &e) {
    return Status::error(std::string("attention reference: internal error: ") +
                         e.what());
  }
}

} // namespace attnc::ref
