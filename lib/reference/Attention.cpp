//===- Attention.cpp - fp64 reference attention ---------------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "lib/reference/Attention.h"

#include "lib/reference/Region.h"
#include "lib/support/Extents.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace attnc::ref {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Everything one query head needs, validated.
struct Problem {
  const pkg::AttentionSpec &spec;
  const AttentionShape &shape;
  const double *q, *k, *v;
  double *out, *lse;
  std::optional<RegionEvaluator> mask, score;
};

/// Checks a region of the spec for its role and builds its evaluator.
Status prepareRegion(const std::optional<pkg::Region> &region,
                     const std::string &what, int64_t numArgs, bool yieldsFloat,
                     std::optional<RegionEvaluator> &result) {
  if (!region)
    return Status::ok();
  if (region->numArgs != numArgs)
    return Status::error(what + " region must take " + std::to_string(numArgs) +
                         " arguments, got " + std::to_string(region->numArgs));
  StatusOr<RegionEvaluator> evaluator = RegionEvaluator::create(*region);
  if (!evaluator)
    return evaluator.status().withContext(what + " region");
  if (evaluator->yieldsFloat() != yieldsFloat ||
      (!yieldsFloat && evaluator->yieldType() != "i1"))
    return Status::error(what + " region must yield " +
                         (yieldsFloat ? "a float" : "i1") + ", got " +
                         evaluator->yieldType());
  result = std::move(*evaluator);
  return Status::ok();
}

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

/// Checks that each array's element count fits in int64 and that a
/// non-empty array has a pointer.
Status checkArrays(const Problem &p) {
  const AttentionShape &s = p.shape;
  struct Array {
    const char *name;
    const void *data;
    std::optional<int64_t> size;
  } arrays[] = {
      {"q", p.q, elementCount({s.batch, s.headsQ, s.seqQ, s.headDim})},
      {"k", p.k, elementCount({s.batch, s.headsKV, s.seqK, s.headDim})},
      {"v", p.v, elementCount({s.batch, s.headsKV, s.seqK, s.headDimV})},
      {"out", p.out, elementCount({s.batch, s.headsQ, s.seqQ, s.headDimV})},
  };
  for (const Array &array : arrays) {
    if (!array.size)
      return Status::error(std::string("attention shape: ") + array.name +
                           " is too large");
    if (*array.size > 0 && !array.data)
      return Status::error(std::string("attention: ") + array.name +
                           " is null");
  }
  return Status::ok();
}

std::string position(int64_t b, int64_t h, int64_t i, int64_t j) {
  return "b=" + std::to_string(b) + " h=" + std::to_string(h) +
         " q_idx=" + std::to_string(i) + " k_idx=" + std::to_string(j);
}

/// Whether query i may attend to key j.
Status isAllowed(const Problem &p, int64_t b, int64_t h, int64_t i, int64_t j,
                 bool &allowed) {
  const pkg::AttentionSpec &spec = p.spec;
  allowed = !(spec.causal && j > i) &&
            !(spec.windowLeft && i - j > *spec.windowLeft) &&
            !(spec.windowRight && j - i > *spec.windowRight);
  if (!allowed || !p.mask)
    return Status::ok();
  StatusOr<RegionValue> value = p.mask->evaluate({0, b, h, i, j});
  if (!value)
    return value.status().withContext("mask region at " + position(b, h, i, j));
  allowed = value->intValue != 0;
  return Status::ok();
}

/// The final score of an allowed pair.
Status scoreOf(const Problem &p, const double *qRow, const double *kRow,
               int64_t b, int64_t h, int64_t i, int64_t j, double &score) {
  // Four independent partial sums let the loop pipeline (and vectorize);
  // in double, the changed summation order is far below any test tolerance.
  double partial[4] = {0, 0, 0, 0};
  int64_t d = 0;
  for (; d + 4 <= p.shape.headDim; d += 4)
    for (int lane = 0; lane < 4; ++lane)
      partial[lane] += qRow[d + lane] * kRow[d + lane];
  for (; d < p.shape.headDim; ++d)
    partial[0] += qRow[d] * kRow[d];
  score =
      p.spec.scale * ((partial[0] + partial[1]) + (partial[2] + partial[3]));
  if (!p.score)
    return Status::ok();
  StatusOr<RegionValue> value = p.score->evaluate({score, b, h, i, j});
  if (!value)
    return value.status().withContext("score region at " +
                                      position(b, h, i, j));
  score = value->floatValue;
  return Status::ok();
}

/// Computes every row of query head h of batch b. `scores` has seqK entries.
Status computeHead(const Problem &p, int64_t b, int64_t h,
                   std::vector<double> &scores) {
  const AttentionShape &s = p.shape;
  const int64_t kvHead = h / (s.headsQ / s.headsKV);
  const double *qHead = p.q + (b * s.headsQ + h) * s.seqQ * s.headDim;
  const double *kHead = p.k + (b * s.headsKV + kvHead) * s.seqK * s.headDim;
  const double *vHead = p.v + (b * s.headsKV + kvHead) * s.seqK * s.headDimV;
  double *outHead = p.out + (b * s.headsQ + h) * s.seqQ * s.headDimV;
  for (int64_t i = 0; i < s.seqQ; ++i) {
    double maxScore = -kInf;
    bool sawNaN = false;
    for (int64_t j = 0; j < s.seqK; ++j) {
      bool allowed;
      if (Status st = isAllowed(p, b, h, i, j, allowed); !st)
        return st;
      scores[j] = -kInf;
      if (!allowed)
        continue;
      if (Status st = scoreOf(p, qHead + i * s.headDim, kHead + j * s.headDim,
                              b, h, i, j, scores[j]);
          !st)
        return st;
      if (std::isnan(scores[j]))
        sawNaN = true;
      else
        maxScore = std::max(maxScore, scores[j]);
    }

    double *outRow = outHead + i * s.headDimV;
    double rowLse;
    if (sawNaN || maxScore == -kInf) {
      // Nothing allowed: out 0, lse -inf. A NaN score poisons the row.
      std::fill(outRow, outRow + s.headDimV, sawNaN ? kNaN : 0.0);
      rowLse = sawNaN ? kNaN : -kInf;
    } else {
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
      rowLse = maxScore + std::log(sum);
    }
    if (p.lse)
      p.lse[(b * s.headsQ + h) * s.seqQ + i] = rowLse;
  }
  return Status::ok();
}

/// Runs computeHead over all (b, h) on up to hardware_concurrency threads;
/// returns the first error, after which the remaining heads are skipped.
Status computeAllHeads(const Problem &p) {
  const int64_t numHeads = p.shape.batch * p.shape.headsQ;
  std::atomic<int64_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex errorMutex;
  Status firstError = Status::ok();
  auto worker = [&] {
    std::vector<double> scores(p.shape.seqK);
    for (int64_t head; !failed && (head = next++) < numHeads;) {
      Status status =
          computeHead(p, head / p.shape.headsQ, head % p.shape.headsQ, scores);
      if (!status) {
        std::lock_guard<std::mutex> lock(errorMutex);
        if (!failed.exchange(true))
          firstError = status;
      }
    }
  };
  int64_t numThreads = std::clamp<int64_t>(std::thread::hardware_concurrency(),
                                           1, std::max<int64_t>(numHeads, 1));
  std::vector<std::thread> threads;
  try {
    for (int64_t t = 1; t < numThreads; ++t)
      threads.emplace_back(worker);
  } catch (const std::system_error &) {
    // Fewer threads than hoped for; the ones running and this one finish
    // the work.
  }
  worker();
  for (std::thread &thread : threads)
    thread.join();
  return firstError;
}

} // namespace

Status attentionForward(const pkg::AttentionSpec &spec,
                        const AttentionShape &shape, const double *q,
                        const double *k, const double *v, double *out,
                        double *lse) {
  try {
    Problem problem{spec, shape, q, k, v, out, lse, std::nullopt, std::nullopt};
    if (Status s = checkShape(shape); !s)
      return s;
    if (Status s = checkArrays(problem); !s)
      return s;
    if (Status s = prepareRegion(spec.mask, "mask", 4, /*yieldsFloat=*/false,
                                 problem.mask);
        !s)
      return s;
    if (Status s = prepareRegion(spec.score, "score", 5, /*yieldsFloat=*/true,
                                 problem.score);
        !s)
      return s;
    return computeAllHeads(problem);
  } catch (const std::exception &e) {
    return Status::error(std::string("attention reference: internal error: ") +
                         e.what());
  }
}

} // namespace attnc::ref
