//===- AttentionPairs.cpp - What the attention references share -----------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "lib/reference/AttentionPairs.h"

#include "lib/support/Extents.h"

#include <algorithm>

namespace attnc::ref::detail {

namespace {

/// Checks a region of the spec for its role and builds its evaluator.
Status prepareRegion(const std::optional<pkg::Region> &region,
                     const std::string &what, int64_t numArgs, bool yieldsFloat,
                     const std::vector<CaptureView> &captures,
                     std::optional<RegionEvaluator> &result) {
  if (!region)
    return Status::ok();
  const int64_t expected = numArgs + static_cast<int64_t>(captures.size());
  if (region->numArgs != expected)
    return Status::error(what + " region must take " +
                         std::to_string(expected) + " arguments, got " +
                         std::to_string(region->numArgs));
  StatusOr<RegionEvaluator> evaluator = RegionEvaluator::create(*region);
  if (!evaluator)
    return evaluator.status().withContext(what + " region");
  if (Status s = evaluator->checkCaptures(captures); !s)
    return s.withContext(what + " region");
  if (evaluator->yieldsFloat() != yieldsFloat ||
      (!yieldsFloat && evaluator->yieldType() != "i1"))
    return Status::error(what + " region must yield " +
                         (yieldsFloat ? "a float" : "i1") + ", got " +
                         evaluator->yieldType());
  result = std::move(*evaluator);
  return Status::ok();
}

} // namespace

Status checkShape(const AttentionShape &s) {
  for (auto [name, extent] :
       {std::pair{"batch", s.batch}, std::pair{"headsQ", s.headsQ},
        std::pair{"headsKV", s.headsKV}, std::pair{"seqQ", s.seqQ},
        std::pair{"seqK", s.seqK}, std::pair{"headDim", s.headDim},
        std::pair{"headDimV", s.headDimV}})
    if (extent < 0)
      return Status::error(std::string("attention shape: ") + name +
                           " must be >= 0, got " + std::to_string(extent));
  if (s.headsQ > 0 && (s.headsKV == 0 || s.headsQ % s.headsKV != 0))
    return Status::error(
        "attention shape: headsQ (" + std::to_string(s.headsQ) +
        ") must be a multiple of headsKV (" + std::to_string(s.headsKV) + ")");
  return Status::ok();
}

Status checkArrays(const std::vector<ArrayArg> &arrays) {
  for (const ArrayArg &array : arrays) {
    std::optional<int64_t> size = elementCount(array.shape);
    if (!size)
      return Status::error(std::string("attention shape: ") + array.name +
                           " is too large");
    if (*size > 0 && !array.data)
      return Status::error(std::string("attention: ") + array.name +
                           " is null");
  }
  return Status::ok();
}

double dot(const double *a, const double *b, int64_t n) {
  // Four independent partial sums let the loop pipeline (and vectorize);
  // in double, the changed summation order is far below any test tolerance.
  double partial[4] = {0, 0, 0, 0};
  int64_t d = 0;
  for (; d + 4 <= n; d += 4)
    for (int lane = 0; lane < 4; ++lane)
      partial[lane] += a[d + lane] * b[d + lane];
  for (; d < n; ++d)
    partial[0] += a[d] * b[d];
  return (partial[0] + partial[1]) + (partial[2] + partial[3]);
}

std::string position(const PairIndex &pair) {
  return "b=" + std::to_string(pair.b) + " h=" + std::to_string(pair.h) +
         " q_idx=" + std::to_string(pair.i) +
         " k_idx=" + std::to_string(pair.j);
}

PairRules::PairRules(const pkg::AttentionSpec &spec,
                     const AttentionShape &shape)
    : scaleFactor(spec.scale), causal(spec.causal),
      diagonal(spec.bottomRight ? shape.seqK - shape.seqQ : 0),
      windowLeft(spec.windowLeft), windowRight(spec.windowRight) {}

StatusOr<PairRules>
PairRules::create(const pkg::AttentionSpec &spec, const AttentionShape &shape,
                  bool differentiable,
                  const std::vector<CaptureView> &captures) {
  PairRules rules(spec, shape);
  rules.captures = captures;
  if (Status s = prepareRegion(spec.mask, "mask", 4, /*yieldsFloat=*/false,
                               captures, rules.mask);
      !s)
    return s;
  if (Status s = prepareRegion(spec.score, "score", 5, /*yieldsFloat=*/true,
                               captures, rules.scoreRegion);
      !s)
    return s;
  if (differentiable && rules.scoreRegion)
    if (Status s = rules.scoreRegion->checkDifferentiable(); !s)
      return s.withContext("score region");
  return rules;
}

Status PairRules::isAllowed(const PairIndex &pair, bool &allowed) const {
  const int64_t i = pair.i, j = pair.j, r = i + diagonal;
  allowed = !(causal && j > r) && !(windowLeft && r - j > *windowLeft) &&
            !(windowRight && j - r > *windowRight);
  if (!allowed || !mask)
    return Status::ok();
  StatusOr<RegionValue> value =
      mask->evaluate({0, pair.b, pair.h, i, j, captures.data()});
  if (!value)
    return value.status().withContext("mask region at " + position(pair));
  allowed = value->intValue != 0;
  return Status::ok();
}

Status PairRules::score(const PairIndex &pair, double raw, bool differentiate,
                        PairScore &result) const {
  result = PairScore{raw, 1};
  if (!scoreRegion)
    return Status::ok();
  const RegionArgs args{raw, pair.b, pair.h, pair.i, pair.j, captures.data()};
  if (differentiate) {
    StatusOr<RegionDerivative> d = scoreRegion->evaluateWithDerivative(args);
    if (!d)
      return d.status().withContext("score region at " + position(pair));
    result = PairScore{d->value, d->derivative};
    return Status::ok();
  }
  StatusOr<RegionValue> value = scoreRegion->evaluate(args);
  if (!value)
    return value.status().withContext("score region at " + position(pair));
  result.score = value->floatValue;
  return Status::ok();
}

} // namespace attnc::ref::detail
