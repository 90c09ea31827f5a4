//===- AttentionGrad.cpp - fp64 reference attention backward --------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// attentionGradKV and attentionGradQ are one computation with different
// outputs wanted: for each query row, the P and dRaw of its pairs
// (gradRow), then their terms added to dk, dv and dq (accumulateRow). Work
// is split by key/value head, so that each task alone writes its dk and dv
// and the dq rows of the query heads of its group.
//
//===----------------------------------------------------------------------===//

#include "lib/reference/AttentionGrad.h"

#include "lib/reference/AttentionPairs.h"
#include "lib/reference/Progress.h"
#include "lib/support/Extents.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace attnc::ref {

namespace {

using detail::PairIndex;

constexpr double kInf = std::numeric_limits<double>::infinity();

/// The arrays of one gradient computation; an output that is not wanted is
/// null (attentionGradQ has no dk and dv).
struct GradArrays {
  const double *q, *k, *v, *lse, *delta, *dout;
  double *dk, *dv;
  const double *dqIn; // added to dqOut; null means 0
  double *dqOut;
};

struct GradProblem {
  const AttentionShape &shape;
  GradArrays a;
  detail::PairRules rules;
};

/// P_ij and dRaw_ij of one pair.
struct PairGrad {
  double p = 0;
  double dRaw = 0;
};

/// Fills `row` (seqK entries) for query row i of head h of batch b.
Status gradRow(const GradProblem &g, int64_t b, int64_t h, int64_t i,
               std::vector<PairGrad> &row) {
  const AttentionShape &s = g.shape;
  const int64_t kvHead = h / (s.headsQ / s.headsKV);
  const int64_t rowIndex = detail::headOffset(b, s.headsQ, h, s.seqQ, 1) + i;
  const double *qRow = g.a.q + rowIndex * s.headDim;
  const double *doutRow = g.a.dout + rowIndex * s.headDimV;
  const double *kHead =
      g.a.k + detail::headOffset(b, s.headsKV, kvHead, s.seqK, s.headDim);
  const double *vHead =
      g.a.v + detail::headOffset(b, s.headsKV, kvHead, s.seqK, s.headDimV);
  const double lse = g.a.lse[rowIndex], delta = g.a.delta[rowIndex];
  std::fill(row.begin(), row.end(), PairGrad());
  if (std::isinf(lse)) // no allowed key: every P is 0
    return Status::ok();
  for (int64_t j = 0; j < s.seqK; ++j) {
    const PairIndex pair{b, h, i, j};
    bool allowed;
    if (Status st = g.rules.isAllowed(pair, allowed); !st)
      return st;
    if (!allowed)
      continue;
    const double raw =
        g.rules.scale() * detail::dot(qRow, kHead + j * s.headDim, s.headDim);
    detail::PairScore score;
    if (Status st = g.rules.score(pair, raw, /*differentiate=*/true, score);
        !st)
      return st;
    const double p = score.score == -kInf ? 0 : std::exp(score.score - lse);
    if (p == 0) // dS is 0 too, even where dP or score' is not finite
      continue;
    const double dP = detail::dot(doutRow, vHead + j * s.headDimV, s.headDimV);
    row[j] = PairGrad{p, p * (dP - delta) * score.derivative * g.rules.scale()};
  }
  return Status::ok();
}

/// y += a * x over n elements.
void addScaled(double *y, double a, const double *x, int64_t n) {
  for (int64_t d = 0; d < n; ++d)
    y[d] += a * x[d];
}

/// Adds the terms of query row `rowIndex` (`row` from gradRow) to dk and dv
/// of key/value head `kvIndex` (b * Hkv + head) and to the row's dq, where
/// they are wanted; the dq row starts from dqIn's.
void accumulateRow(const GradProblem &g, int64_t rowIndex, int64_t kvIndex,
                   const std::vector<PairGrad> &row) {
  const AttentionShape &s = g.shape;
  const double *qRow = g.a.q + rowIndex * s.headDim;
  const double *doutRow = g.a.dout + rowIndex * s.headDimV;
  const int64_t firstKey = kvIndex * s.seqK;
  double *dqRow = g.a.dqOut ? g.a.dqOut + rowIndex * s.headDim : nullptr;
  if (dqRow && !g.a.dqIn)
    std::fill_n(dqRow, s.headDim, 0.0);
  else if (dqRow && g.a.dqIn != g.a.dqOut)
    std::copy_n(g.a.dqIn + rowIndex * s.headDim, s.headDim, dqRow);
  for (int64_t j = 0; j < s.seqK; ++j) {
    if (row[j].p == 0) // not NaN: a NaN score propagates
      continue;
    if (g.a.dv)
      addScaled(g.a.dv + (firstKey + j) * s.headDimV, row[j].p, doutRow,
                s.headDimV);
    if (g.a.dk)
      addScaled(g.a.dk + (firstKey + j) * s.headDim, row[j].dRaw, qRow,
                s.headDim);
    if (dqRow)
      addScaled(dqRow, row[j].dRaw, g.a.k + (firstKey + j) * s.headDim,
                s.headDim);
  }
}

/// Computes the gradients of key/value head `kvHead` of batch b, from the
/// rows of the query heads of its group.
Status computeKVHead(const GradProblem &g, int64_t b, int64_t kvHead) {
  const AttentionShape &s = g.shape;
  const int64_t kvIndex = b * s.headsKV + kvHead;
  const int64_t group = s.headsQ / s.headsKV;
  if (g.a.dk)
    std::fill_n(g.a.dk + kvIndex * s.seqK * s.headDim, s.seqK * s.headDim, 0.0);
  if (g.a.dv)
    std::fill_n(g.a.dv + kvIndex * s.seqK * s.headDimV, s.seqK * s.headDimV,
                0.0);
  std::vector<PairGrad> row(s.seqK);
  for (int64_t h = kvHead * group; h < (kvHead + 1) * group; ++h)
    for (int64_t i = 0; i < s.seqQ; ++i) {
      if (Status st = gradRow(g, b, h, i, row); !st)
        return st;
      accumulateRow(g, detail::headOffset(b, s.headsQ, h, s.seqQ, 1) + i,
                    kvIndex, row);
    }
  return Status::ok();
}

/// The shapes of attention's arrays.
struct Shapes {
  std::vector<int64_t> q, k, v, out, rows;
  explicit Shapes(const AttentionShape &s)
      : q{s.batch, s.headsQ, s.seqQ, s.headDim},
        k{s.batch, s.headsKV, s.seqK, s.headDim}, v{s.batch, s.headsKV, s.seqK,
                                                    s.headDimV},
        out{s.batch, s.headsQ, s.seqQ, s.headDimV}, rows{s.batch, s.headsQ,
                                                         s.seqQ} {}
};

/// Checks the shape, the inputs of `a` and `outputs`, and the spec, then
/// computes every key/value head.
Status computeGrad(const pkg::AttentionSpec &spec, const AttentionShape &shape,
                   const GradArrays &a,
                   const std::vector<detail::ArrayArg> &outputs,
                   const std::vector<CaptureView> &captures) {
  if (Status st = detail::checkShape(shape); !st)
    return st;
  const Shapes shapes(shape);
  std::vector<detail::ArrayArg> arrays = {{"q", a.q, shapes.q},
                                          {"k", a.k, shapes.k},
                                          {"v", a.v, shapes.v},
                                          {"lse", a.lse, shapes.rows},
                                          {"delta", a.delta, shapes.rows},
                                          {"dout", a.dout, shapes.out}};
  arrays.insert(arrays.end(), outputs.begin(), outputs.end());
  if (Status st = detail::checkArrays(arrays); !st)
    return st;
  StatusOr<detail::PairRules> rules =
      detail::PairRules::create(spec, shape, /*differentiable=*/true, captures);
  if (!rules)
    return rules.status();
  const GradProblem problem{shape, a, std::move(*rules)};
  return parallelFor(shape.batch * shape.headsKV, [&](int64_t head) {
    return computeKVHead(problem, head / shape.headsKV, head % shape.headsKV);
  });
}

/// Runs `fn`, turning an exception (out of memory) into an error.
template <typename Fn> Status guarded(Fn &&fn) {
  try {
    return fn();
  } catch (const std::exception &e) {
    return Status::error(
        std::string("attention gradient reference: internal error: ") +
        e.what());
  }
}

} // namespace

Status attentionGradDelta(const AttentionShape &shape, const double *out,
                          const double *dout, double *delta) {
  return guarded([&] {
    if (Status st = detail::checkShape(shape); !st)
      return st;
    const Shapes shapes(shape);
    if (Status st = detail::checkArrays({{"out", out, shapes.out},
                                         {"dout", dout, shapes.out},
                                         {"delta", delta, shapes.rows}});
        !st)
      return st;
    const int64_t rows = shape.batch * shape.headsQ * shape.seqQ;
    for (int64_t r = 0; r < rows; ++r)
      delta[r] = detail::dot(out + r * shape.headDimV,
                             dout + r * shape.headDimV, shape.headDimV);
    return Status::ok();
  });
}

Status attentionGradKV(const pkg::AttentionSpec &spec,
                       const AttentionShape &shape, const double *q,
                       const double *k, const double *v, const double *lse,
                       const double *delta, const double *dout,
                       const double *dqAccumIn, double *dk, double *dv,
                       double *dqAccumOut,
                       const std::vector<CaptureView> &captures) {
  return guarded([&] {
    if (dqAccumIn && !dqAccumOut)
      return Status::error(
          "attention: dqAccumIn is given without dqAccumOut to add to");
    const Shapes shapes(shape);
    std::vector<detail::ArrayArg> outputs = {{"dk", dk, shapes.k},
                                             {"dv", dv, shapes.v}};
    if (dqAccumOut)
      outputs.push_back({"dqAccumOut", dqAccumOut, shapes.q});
    return computeGrad(
        spec, shape, {q, k, v, lse, delta, dout, dk, dv, dqAccumIn, dqAccumOut},
        outputs, captures);
  });
}

Status attentionGradQ(const pkg::AttentionSpec &spec,
                      const AttentionShape &shape, const double *q,
                      const double *k, const double *v, const double *lse,
                      const double *delta, const double *dout, double *dq,
                      const std::vector<CaptureView> &captures) {
  return guarded([&] {
    return computeGrad(
        spec, shape, {q, k, v, lse, delta, dout, nullptr, nullptr, nullptr, dq},
        {{"dq", dq, Shapes(shape).q}}, captures);
  });
}

Status attentionBackward(const pkg::AttentionSpec &spec,
                         const AttentionShape &shape, const double *q,
                         const double *k, const double *v, const double *dout,
                         double *dq, double *dk, double *dv,
                         const std::vector<CaptureView> &captures) {
  return guarded([&] {
    if (Status st = detail::checkShape(shape); !st)
      return st;
    // Every array first, so that nothing is written when one is missing.
    const Shapes shapes(shape);
    if (Status st = detail::checkArrays({{"q", q, shapes.q},
                                         {"k", k, shapes.k},
                                         {"v", v, shapes.v},
                                         {"dout", dout, shapes.out},
                                         {"dq", dq, shapes.q},
                                         {"dk", dk, shapes.k},
                                         {"dv", dv, shapes.v}});
        !st)
      return st;
    std::optional<int64_t> rows = elementCount(shapes.rows);
    if (!rows)
      return Status::error("attention shape: lse is too large");
    // out has dout's shape, whose count fits.
    std::vector<double> out(*elementCount(shapes.out)), lse(*rows),
        delta(*rows);
    if (Status st = attentionForward(spec, shape, q, k, v, out.data(),
                                     lse.data(), captures);
        !st)
      return st;
    if (Status st = attentionGradDelta(shape, out.data(), dout, delta.data());
        !st)
      return st;
    if (Status st =
            attentionGradKV(spec, shape, q, k, v, lse.data(), delta.data(),
                            dout, nullptr, dk, dv, nullptr, captures);
        !st)
      return st;
    return attentionGradQ(spec, shape, q, k, v, lse.data(), delta.data(), dout,
                          dq, captures);
  });
}

} // namespace attnc::ref
