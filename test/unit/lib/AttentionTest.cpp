//===- AttentionTest.cpp - Tests for the fp64 reference attention ---------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Closed-form cases first, then comparisons against `naiveAttention` below:
// an independent transcription of the definition with C++ lambdas for the
// mask and score, against which the region-driven reference must agree.
//
//===----------------------------------------------------------------------===//

#include "lib/reference/Attention.h"
#include "lib/reference/Progress.h"

#include "AttentionRegions.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <vector>

using namespace attnc;
using namespace attnc::ref;
using namespace attnc::testutil;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

using MaskFn = std::function<bool(int64_t b, int64_t h, int64_t i, int64_t j)>;
using ScoreFn =
    std::function<double(double s, int64_t b, int64_t h, int64_t i, int64_t j)>;

/// Tensors for one problem, filled with uniform random values.
struct Problem {
  AttentionShape shape;
  std::vector<double> q, k, v, out, lse;

  explicit Problem(AttentionShape s, unsigned seed = 7) : shape(s) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> uniform(-1, 1);
    auto fill = [&](std::vector<double> &t, int64_t n) {
      t.resize(n);
      for (double &x : t)
        x = uniform(rng);
    };
    fill(q, s.batch * s.headsQ * s.seqQ * s.headDim);
    fill(k, s.batch * s.headsKV * s.seqK * s.headDim);
    fill(v, s.batch * s.headsKV * s.seqK * s.headDimV);
    out.assign(s.batch * s.headsQ * s.seqQ * s.headDimV, std::nan(""));
    lse.assign(s.batch * s.headsQ * s.seqQ, std::nan(""));
  }

  Status run(const pkg::AttentionSpec &spec) {
    return attentionForward(spec, shape, q.data(), k.data(), v.data(),
                            out.data(), lse.data());
  }

  double outAt(int64_t b, int64_t h, int64_t i, int64_t d) const {
    return out[((b * shape.headsQ + h) * shape.seqQ + i) * shape.headDimV + d];
  }
  double lseAt(int64_t b, int64_t h, int64_t i) const {
    return lse[(b * shape.headsQ + h) * shape.seqQ + i];
  }
  double vAt(int64_t b, int64_t h, int64_t j, int64_t d) const {
    return v[((b * shape.headsKV + h) * shape.seqK + j) * shape.headDimV + d];
  }
};

/// The definition, transcribed directly: exp without a max shift (inputs
/// are small), the KV head as h * Hkv / Hq, masked pairs skipped.
void naiveAttention(const Problem &p, double scale, const MaskFn &allowed,
                    const ScoreFn &score, std::vector<double> &out,
                    std::vector<double> &lse) {
  const AttentionShape &s = p.shape;
  out.assign(p.out.size(), 0);
  lse.assign(p.lse.size(), 0);
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t h = 0; h < s.headsQ; ++h) {
      int64_t g = h * s.headsKV / s.headsQ;
      for (int64_t i = 0; i < s.seqQ; ++i) {
        double sum = 0;
        std::vector<double> acc(s.headDimV, 0);
        for (int64_t j = 0; j < s.seqK; ++j) {
          if (!allowed(b, h, i, j))
            continue;
          double dot = 0;
          for (int64_t d = 0; d < s.headDim; ++d)
            dot += p.q[((b * s.headsQ + h) * s.seqQ + i) * s.headDim + d] *
                   p.k[((b * s.headsKV + g) * s.seqK + j) * s.headDim + d];
          double weight = std::exp(score(scale * dot, b, h, i, j));
          sum += weight;
          for (int64_t d = 0; d < s.headDimV; ++d)
            acc[d] += weight * p.vAt(b, g, j, d);
        }
        for (int64_t d = 0; d < s.headDimV; ++d)
          out[((b * s.headsQ + h) * s.seqQ + i) * s.headDimV + d] =
              sum > 0 ? acc[d] / sum : 0;
        lse[(b * s.headsQ + h) * s.seqQ + i] = std::log(sum);
      }
    }
}

const MaskFn kAll = [](int64_t, int64_t, int64_t, int64_t) { return true; };
const ScoreFn kIdentity = [](double s, int64_t, int64_t, int64_t, int64_t) {
  return s;
};

/// Runs the reference on `p` with `spec` and the naive version with the
/// equivalent lambdas; every output must agree to ~1e-12.
void expectMatchesNaive(Problem &p, const pkg::AttentionSpec &spec,
                        const MaskFn &allowed, const ScoreFn &score) {
  Status status = p.run(spec);
  ASSERT_TRUE(status.isOk()) << status.message();
  std::vector<double> out, lse;
  naiveAttention(p, spec.scale, allowed, score, out, lse);
  for (size_t i = 0; i < out.size(); ++i)
    ASSERT_NEAR(p.out[i], out[i], 1e-12) << "out element " << i;
  for (size_t i = 0; i < lse.size(); ++i) {
    if (std::isinf(lse[i]))
      ASSERT_EQ(p.lse[i], lse[i]) << "lse element " << i;
    else
      ASSERT_NEAR(p.lse[i], lse[i], 1e-12) << "lse element " << i;
  }
}

pkg::AttentionSpec specWithScale(double scale) {
  pkg::AttentionSpec spec;
  spec.scale = scale;
  return spec;
}

TEST(LibAttention, UniformScoresGiveTheMeanOfV) {
  Problem p({1, 2, 2, 3, 5, 4, 3});
  std::fill(p.q.begin(), p.q.end(), 0.0);
  ASSERT_TRUE(p.run(specWithScale(0.5)).isOk());
  for (int64_t h = 0; h < 2; ++h)
    for (int64_t i = 0; i < 3; ++i) {
      for (int64_t d = 0; d < 3; ++d) {
        double mean = 0;
        for (int64_t j = 0; j < 5; ++j)
          mean += p.vAt(0, h, j, d) / 5;
        EXPECT_NEAR(p.outAt(0, h, i, d), mean, 1e-15);
      }
      EXPECT_NEAR(p.lseAt(0, h, i), std::log(5.0), 1e-15);
    }
}

TEST(LibAttention, CausalFirstRowIsTheFirstValue) {
  Problem p({2, 2, 1, 4, 4, 8, 8});
  pkg::AttentionSpec spec = specWithScale(0.3);
  spec.causal = true;
  ASSERT_TRUE(p.run(spec).isOk());
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t d = 0; d < 8; ++d)
        EXPECT_EQ(p.outAt(b, h, 0, d), p.vAt(b, 0, 0, d));
  expectMatchesNaive(
      p, spec, [](int64_t, int64_t, int64_t i, int64_t j) { return j <= i; },
      kIdentity);
}

TEST(LibAttention, FullyMaskedRowGivesZeroAndMinusInfinity) {
  Problem p({1, 1, 1, 4, 6, 3, 2});
  pkg::AttentionSpec spec = specWithScale(1);
  // Allowed iff q_idx != 2.
  spec.mask = pkg::Region{4,
                          {op("arith.constant", {}, "index", "", 0, 2),
                           op("arith.cmpi", {2, 4}, "i1", "ne")},
                          5};
  ASSERT_TRUE(p.run(spec).isOk());
  for (int64_t d = 0; d < 2; ++d) {
    EXPECT_EQ(p.outAt(0, 0, 2, d), 0.0);
    EXPECT_FALSE(std::isnan(p.outAt(0, 0, 1, d)));
  }
  EXPECT_EQ(p.lseAt(0, 0, 2), -kInf);
  // A score of -inf everywhere masks as well.
  pkg::AttentionSpec minusInf = specWithScale(1);
  minusInf.score =
      pkg::Region{5, {op("arith.constant", {}, "f32", "", -kInf)}, 5};
  ASSERT_TRUE(p.run(minusInf).isOk());
  EXPECT_EQ(p.outAt(0, 0, 0, 0), 0.0);
  EXPECT_EQ(p.lseAt(0, 0, 3), -kInf);
  // An empty key sequence masks every row.
  Problem empty({1, 1, 1, 2, 0, 3, 2});
  ASSERT_TRUE(empty.run(specWithScale(1)).isOk());
  EXPECT_EQ(empty.outAt(0, 0, 1, 1), 0.0);
  EXPECT_EQ(empty.lseAt(0, 0, 1), -kInf);
}

TEST(LibAttention, NanScorePoisonsItsRow) {
  Problem p({1, 1, 1, 2, 3, 2, 2});
  p.k[0] = std::nan("");
  ASSERT_TRUE(p.run(specWithScale(1)).isOk());
  EXPECT_TRUE(std::isnan(p.outAt(0, 0, 0, 0)));
  EXPECT_TRUE(std::isnan(p.lseAt(0, 0, 1)));
}

// A Progress installed for the calling thread counts the reference's tasks
// (one per batch and query head) as the worker threads finish them; the
// scope restores the previous one.
TEST(LibAttention, ProgressCountsTasksOfTheCallingThread) {
  Problem problem({2, 6, 3, 9, 11, 4, 4});
  Progress outer, inner;
  {
    ProgressScope outerScope(outer);
    {
      ProgressScope innerScope(inner);
      ASSERT_TRUE(problem.run(specWithScale(1)).isOk());
    }
    EXPECT_EQ(currentProgress(), &outer);
    ASSERT_TRUE(problem.run(specWithScale(1)).isOk());
  }
  EXPECT_EQ(currentProgress(), nullptr);
  EXPECT_EQ(inner.total, 12);
  EXPECT_EQ(inner.done, 12);
  EXPECT_EQ(outer.total, 12);
  EXPECT_EQ(outer.done, 12);
  // Without a scope nothing is counted anywhere.
  ASSERT_TRUE(problem.run(specWithScale(1)).isOk());
  EXPECT_EQ(outer.done, 12);
}

TEST(LibAttention, GroupedQueryAttentionMapsFourQueryHeadsPerKVHead) {
  const AttentionShape gqaShape{2, 8, 2, 5, 7, 4, 3};
  Problem gqa(gqaShape);
  pkg::AttentionSpec spec = specWithScale(0.7);
  ASSERT_TRUE(gqa.run(spec).isOk());
  // Each query head alone, with its KV head copied out, must give the same.
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t h = 0; h < 8; ++h) {
      Problem single({1, 1, 1, 5, 7, 4, 3});
      const int64_t kv = h / 4;
      std::copy_n(gqa.q.begin() + (b * 8 + h) * 5 * 4, 5 * 4, single.q.begin());
      std::copy_n(gqa.k.begin() + (b * 2 + kv) * 7 * 4, 7 * 4,
                  single.k.begin());
      std::copy_n(gqa.v.begin() + (b * 2 + kv) * 7 * 3, 7 * 3,
                  single.v.begin());
      ASSERT_TRUE(single.run(spec).isOk());
      for (int64_t i = 0; i < 5; ++i) {
        for (int64_t d = 0; d < 3; ++d)
          EXPECT_EQ(gqa.outAt(b, h, i, d), single.outAt(0, 0, i, d))
              << "b " << b << " h " << h;
        EXPECT_EQ(gqa.lseAt(b, h, i), single.lseAt(0, 0, i));
      }
    }
}

TEST(LibAttention, SlidingWindow) {
  Problem p({1, 2, 1, 9, 9, 4, 4});
  pkg::AttentionSpec spec = specWithScale(0.5);
  spec.windowLeft = 2;
  spec.windowRight = 1;
  expectMatchesNaive(
      p, spec,
      [](int64_t, int64_t, int64_t i, int64_t j) {
        return i - j <= 2 && j - i <= 1;
      },
      kIdentity);
  // With causal, the window only reaches back.
  spec.causal = true;
  expectMatchesNaive(
      p, spec,
      [](int64_t, int64_t, int64_t i, int64_t j) {
        return j <= i && i - j <= 2;
      },
      kIdentity);
}

TEST(LibAttention, BottomRightAlignsTheDiagonalWithTheLastKey) {
  pkg::AttentionSpec spec = specWithScale(0.5);
  spec.causal = true;
  spec.bottomRight = true;
  // Fewer queries than keys (decoding with a cache): row i sees i + 5 keys.
  Problem wide({1, 2, 1, 4, 9, 4, 4});
  expectMatchesNaive(
      wide, spec,
      [](int64_t, int64_t, int64_t i, int64_t j) { return j <= i + 5; },
      kIdentity);
  // More queries than keys: the first 5 rows see no key.
  Problem tall({1, 2, 1, 9, 4, 4, 4});
  expectMatchesNaive(
      tall, spec,
      [](int64_t, int64_t, int64_t i, int64_t j) { return j <= i - 5; },
      kIdentity);
  EXPECT_EQ(tall.lseAt(0, 0, 4), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(tall.outAt(0, 0, 4, 0), 0.0);
  // Windows shift with the diagonal.
  spec.windowLeft = 2;
  expectMatchesNaive(
      wide, spec,
      [](int64_t, int64_t, int64_t i, int64_t j) {
        return j <= i + 5 && i + 5 - j <= 2;
      },
      kIdentity);
  spec.causal = false;
  spec.windowRight = 1;
  expectMatchesNaive(
      wide, spec,
      [](int64_t, int64_t, int64_t i, int64_t j) {
        return i + 5 - j <= 2 && j - (i + 5) <= 1;
      },
      kIdentity);
}

TEST(LibAttention, PrefixLmMaskRegion) {
  Problem p({2, 2, 2, 10, 10, 4, 4});
  pkg::AttentionSpec spec = specWithScale(0.5);
  spec.mask = prefixLmMask(4);
  expectMatchesNaive(
      p, spec,
      [](int64_t, int64_t, int64_t i, int64_t j) { return j < 4 || j <= i; },
      kIdentity);
  // Row 0 sees the whole prefix, unlike under plain causal masking.
  std::vector<double> prefixOut = p.out;
  pkg::AttentionSpec causal = specWithScale(0.5);
  causal.causal = true;
  ASSERT_TRUE(p.run(causal).isOk());
  EXPECT_NE(p.outAt(0, 0, 0, 0), prefixOut[0]);
}

TEST(LibAttention, SoftcapScoreRegion) {
  Problem p({1, 2, 1, 6, 8, 4, 3});
  // Large scale so that the cap matters.
  pkg::AttentionSpec spec = specWithScale(40);
  spec.score = softcapScore(30);
  expectMatchesNaive(p, spec, kAll,
                     [](double s, int64_t, int64_t, int64_t, int64_t) {
                       return 30 * std::tanh(s / 30);
                     });
}

TEST(LibAttention, AlibiScoreRegion) {
  Problem p({1, 4, 2, 6, 6, 4, 3});
  pkg::AttentionSpec spec = specWithScale(0.5);
  spec.causal = true;
  spec.score = alibiScore(4);
  expectMatchesNaive(
      p, spec, [](int64_t, int64_t, int64_t i, int64_t j) { return j <= i; },
      [](double s, int64_t, int64_t h, int64_t i, int64_t j) {
        return s -
               std::pow(2.0, -8.0 * (h + 1) / 4) * static_cast<double>(i - j);
      });
}

TEST(LibAttention, RandomProblemsMatchTheNaiveFormulation) {
  std::mt19937 rng(2024);
  for (int trial = 0; trial < 6; ++trial) {
    std::uniform_int_distribution<int64_t> small(1, 3), seq(1, 19), dim(1, 9);
    int64_t headsKV = small(rng), group = small(rng);
    AttentionShape shape{small(rng), headsKV * group, headsKV, seq(rng),
                         seq(rng),   dim(rng),        dim(rng)};
    Problem p(shape, trial);
    pkg::AttentionSpec spec =
        specWithScale(1 / std::sqrt(static_cast<double>(shape.headDim)));
    spec.causal = trial % 2;
    if (trial % 3 == 0)
      spec.windowLeft = 3;
    if (trial >= 3)
      spec.mask = prefixLmMask(2);
    if (trial % 2 == 0)
      spec.score = softcapScore(5);
    MaskFn allowed = [&](int64_t, int64_t, int64_t i, int64_t j) {
      return !(spec.causal && j > i) &&
             !(spec.windowLeft && i - j > *spec.windowLeft) &&
             (!spec.mask || j < 2 || j <= i);
    };
    ScoreFn score = [&](double s, int64_t, int64_t, int64_t, int64_t) {
      return spec.score ? 5 * std::tanh(s / 5) : s;
    };
    SCOPED_TRACE("trial " + std::to_string(trial));
    expectMatchesNaive(p, spec, allowed, score);
  }
}

TEST(LibAttention, LseIsOptional) {
  Problem p({1, 1, 1, 3, 3, 2, 2});
  ASSERT_TRUE(p.run(specWithScale(1)).isOk());
  std::vector<double> expected = p.out;
  Status status =
      attentionForward(specWithScale(1), p.shape, p.q.data(), p.k.data(),
                       p.v.data(), p.out.data(), nullptr);
  ASSERT_TRUE(status.isOk()) << status.message();
  EXPECT_EQ(p.out, expected);
}

TEST(LibAttention, RejectsBadInput) {
  Problem p({1, 3, 2, 2, 2, 2, 2});
  EXPECT_EQ(p.run(specWithScale(1)).message(),
            "attention shape: headsQ (3) must be a multiple of headsKV (2)");
  Problem negative({1, 1, 1, 2, 2, 2, 2});
  negative.shape.seqQ = -2;
  EXPECT_EQ(negative.run(specWithScale(1)).message(),
            "attention shape: seqQ must be >= 0, got -2");
  Problem ok({1, 1, 1, 2, 2, 2, 2});
  EXPECT_EQ(attentionForward(specWithScale(1), ok.shape, ok.q.data(), nullptr,
                             ok.v.data(), ok.out.data(), nullptr)
                .message(),
            "attention: k is null");

  pkg::AttentionSpec floatMask = specWithScale(1);
  floatMask.mask = pkg::Region{4, {op("arith.constant", {}, "f32", "", 1)}, 4};
  EXPECT_EQ(ok.run(floatMask).message(), "mask region must yield i1, got f32");
  pkg::AttentionSpec boolScore = specWithScale(1);
  boolScore.score =
      pkg::Region{5, {op("arith.constant", {}, "i1", "", 0, -1)}, 5};
  EXPECT_EQ(ok.run(boolScore).message(),
            "score region must yield a float, got i1");
  pkg::AttentionSpec arity = specWithScale(1);
  arity.mask = softcapScore(1);
  EXPECT_EQ(ok.run(arity).message(),
            "mask region must take 4 arguments, got 5");
  pkg::AttentionSpec unknown = specWithScale(1);
  unknown.score = pkg::Region{5, {op("math.cbrt", {0}, "f32")}, 5};
  EXPECT_EQ(ok.run(unknown).message(),
            "score region: op 0 (math.cbrt): unknown op");
  // Undefined behaviour while evaluating names the position: 1.0 / (q - k)
  // is infinite on the diagonal, out of fptosi's range.
  pkg::AttentionSpec convert = specWithScale(1);
  convert.mask = pkg::Region{
      4,
      {op("arith.subi", {2, 3}, "index"), op("arith.index_cast", {4}, "i64"),
       op("arith.sitofp", {5}, "f32"), op("arith.constant", {}, "f32", "", 1.0),
       op("arith.divf", {7, 6}, "f32"), op("arith.fptosi", {8}, "i32"),
       op("arith.constant", {}, "i32", "", 0, 0),
       op("arith.cmpi", {9, 10}, "i1", "sge")},
      11};
  EXPECT_EQ(ok.run(convert).message(),
            "mask region at b=0 h=0 q_idx=0 k_idx=0: op 5 (arith.fptosi): "
            "value out of range of the result type");
}

} // namespace
