//===- Token.cpp - fp64 reference of embeddings and losses ----------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "lib/reference/Token.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace attnc::ref {

/// Whether id `id` is a row of `shape`'s table.
static bool isRow(const TableShape &shape, double id) {
  return id >= 0 && id < static_cast<double>(shape.rows);
}

void embedding(const TableShape &shape, const double *table, const double *ids,
               double *out) {
  for (int64_t t = 0; t < shape.tokens; ++t)
    for (int64_t d = 0; d < shape.width; ++d)
      out[t * shape.width + d] =
          isRow(shape, ids[t])
              ? table[static_cast<int64_t>(ids[t]) * shape.width + d]
              : std::numeric_limits<double>::quiet_NaN();
}

void tokenOrder(const TableShape &shape, const double *ids, double *order,
                double *bounds) {
  std::vector<int64_t> next(shape.rows + 1, 0);
  for (int64_t t = 0; t < shape.tokens; ++t)
    if (isRow(shape, ids[t]))
      ++next[static_cast<int64_t>(ids[t]) + 1];
  for (int64_t v = 0; v < shape.rows; ++v)
    next[v + 1] += next[v];
  std::fill(order, order + shape.tokens, -1.0);
  for (int64_t t = 0; t < shape.tokens; ++t)
    if (isRow(shape, ids[t]))
      order[next[static_cast<int64_t>(ids[t])]++] = static_cast<double>(t);
  // next[v] moved to the end of v's tokens: the start of v + 1's.
  bounds[0] = 0;
  for (int64_t v = 0; v < shape.rows; ++v)
    bounds[v + 1] = static_cast<double>(next[v]);
}

void embeddingGrad(const TableShape &shape, const double *order,
                   const double *bounds, const double *dout, double *dtable) {
  auto clamped = [&](double v) {
    return static_cast<int64_t>(
        std::clamp(v, 0.0, static_cast<double>(shape.tokens)));
  };
  std::fill(dtable, dtable + shape.rows * shape.width, 0.0);
  for (int64_t v = 0; v < shape.rows; ++v) {
    int64_t end = clamped(bounds[v + 1]);
    for (int64_t p = std::min(clamped(bounds[v]), end); p < end; ++p) {
      bool inside = order[p] >= 0 && order[p] < shape.tokens;
      int64_t t = inside ? static_cast<int64_t>(order[p]) : shape.tokens - 1;
      for (int64_t d = 0; d < shape.width; ++d)
        dtable[v * shape.width + d] += dout[t * shape.width + d];
    }
  }
}

/// log(sum_v exp(values[v * stride])) over `count` values, the max taken
/// out first.
static double logSumExp(const double *values, int64_t count, int64_t stride) {
  double max = -std::numeric_limits<double>::infinity(), sum = 0;
  for (int64_t v = 0; v < count; ++v)
    max = std::max(max, values[v * stride]);
  for (int64_t v = 0; v < count; ++v)
    sum += std::exp(values[v * stride] - max);
  return max + std::log(sum);
}

/// The logit of class `local` of a row of `classes`, 0 when it is none.
static double labelLogit(const double *row, int64_t classes, double local) {
  bool inRow = local >= 0 && local < static_cast<double>(classes);
  return inRow ? row[static_cast<int64_t>(local)] : 0;
}

/// lse - target: 0 for an ignored label, NaN for one outside [0, classes).
static double labelLoss(const LossShape &shape, double label, double lse,
                        double target) {
  if (label == static_cast<double>(shape.ignoreIndex))
    return 0;
  if (label < 0 || label >= static_cast<double>(shape.classes))
    return std::numeric_limits<double>::quiet_NaN();
  return lse - target;
}

void crossEntropy(const LossShape &shape, const double *logits,
                  const double *labels, double *losses, double *lse) {
  for (int64_t r = 0; r < shape.rows; ++r) {
    const double *row = logits + r * shape.classes;
    lse[r] = logSumExp(row, shape.classes, 1);
    losses[r] = labelLoss(shape, labels[r], lse[r],
                          labelLogit(row, shape.classes, labels[r]));
  }
}

void crossEntropyPartial(const LossShape &shape, const double *logits,
                         const double *labels, double *lse, double *target) {
  for (int64_t r = 0; r < shape.rows; ++r) {
    const double *row = logits + r * shape.classes;
    lse[r] = logSumExp(row, shape.classes, 1);
    target[r] = labelLogit(row, shape.classes,
                           labels[r] - static_cast<double>(shape.vocabOffset));
  }
}

void crossEntropyCombine(const LossShape &shape, int64_t parts,
                         const double *lseParts, const double *targets,
                         const double *labels, double *losses, double *lse) {
  for (int64_t r = 0; r < shape.rows; ++r) {
    lse[r] = logSumExp(lseParts + r, parts, shape.rows);
    double target = 0;
    for (int64_t p = 0; p < parts; ++p)
      target += targets[p * shape.rows + r];
    losses[r] = labelLoss(shape, labels[r], lse[r], target);
  }
}

void crossEntropyGrad(const LossShape &shape, const double *logits,
                      const double *labels, const double *lse,
                      const double *dlosses, double *dlogits) {
  for (int64_t r = 0; r < shape.rows; ++r) {
    bool ignored = labels[r] == static_cast<double>(shape.ignoreIndex);
    double scale = ignored ? 0 : dlosses[r];
    for (int64_t v = 0; v < shape.classes; ++v) {
      int64_t i = r * shape.classes + v;
      double onehot =
          labels[r] == static_cast<double>(v + shape.vocabOffset) ? 1 : 0;
      dlogits[i] = (std::exp(logits[i] - lse[r]) - onehot) * scale;
    }
  }
}

/// The tokens whose label counts.
static double countTokens(int64_t tokens, int64_t ignoreIndex,
                          const double *labels) {
  double count = 0;
  for (int64_t t = 0; t < tokens; ++t)
    count += labels[t] != static_cast<double>(ignoreIndex);
  return count;
}

double tokenMean(int64_t tokens, int64_t ignoreIndex, const double *values,
                 const double *labels) {
  double sum = 0;
  for (int64_t t = 0; t < tokens; ++t)
    if (labels[t] != static_cast<double>(ignoreIndex))
      sum += values[t];
  return sum / countTokens(tokens, ignoreIndex, labels);
}

void tokenMeanGrad(int64_t tokens, int64_t ignoreIndex, const double *labels,
                   double dmean, double *dvalues) {
  double scale = dmean / countTokens(tokens, ignoreIndex, labels);
  for (int64_t t = 0; t < tokens; ++t)
    dvalues[t] = labels[t] != static_cast<double>(ignoreIndex) ? scale : 0;
}

} // namespace attnc::ref
