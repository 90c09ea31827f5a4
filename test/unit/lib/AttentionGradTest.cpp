//===- AttentionGradTest.cpp - Tests for the fp64 attention backward ------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// attentionBackward against central finite differences of
// L = sum(dout ∘ attentionForward(q, k, v).out) in every element of q, k
// and v, for each attention variant; then the split functions against
// attentionBackward, and the errors.
//
//===----------------------------------------------------------------------===//

#include "lib/reference/AttentionGrad.h"

#include "AttentionRegions.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace attnc;
using namespace attnc::ref;
using namespace attnc::testutil;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// A problem's inputs, uniform in [-1, 1], and room for its gradients
/// (NaN until written).
struct Problem {
  AttentionShape shape;
  std::vector<double> q, k, v, dout, dq, dk, dv;

  explicit Problem(AttentionShape s, unsigned seed = 11) : shape(s) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> uniform(-1, 1);
    auto fill = [&](std::vector<double> &t, std::vector<double> &grad,
                    int64_t n) {
      t.resize(n);
      for (double &x : t)
        x = uniform(rng);
      grad.assign(n, kNaN);
    };
    std::vector<double> unused;
    fill(q, dq, s.batch * s.headsQ * s.seqQ * s.headDim);
    fill(k, dk, s.batch * s.headsKV * s.seqK * s.headDim);
    fill(v, dv, s.batch * s.headsKV * s.seqK * s.headDimV);
    fill(dout, unused, s.batch * s.headsQ * s.seqQ * s.headDimV);
  }

  Status backward(const pkg::AttentionSpec &spec) {
    return attentionBackward(spec, shape, q.data(), k.data(), v.data(),
                             dout.data(), dq.data(), dk.data(), dv.data());
  }

  /// The forward pass's out and lse.
  void forward(const pkg::AttentionSpec &spec, std::vector<double> &out,
               std::vector<double> &lse) const {
    out.assign(dout.size(), kNaN);
    lse.assign(shape.batch * shape.headsQ * shape.seqQ, kNaN);
    Status st = attentionForward(spec, shape, q.data(), k.data(), v.data(),
                                 out.data(), lse.data());
    EXPECT_TRUE(st.isOk()) << st.message();
  }

  /// L = sum(dout ∘ out).
  double loss(const pkg::AttentionSpec &spec) const {
    std::vector<double> out, lse;
    forward(spec, out, lse);
    double sum = 0;
    for (size_t e = 0; e < out.size(); ++e)
      sum += dout[e] * out[e];
    return sum;
  }
};

/// Compares `grad` with central finite differences of L in each element of
/// `x`, one of p's inputs. Their error is about 1e-10 on these sizes (step
/// 1e-5); the tolerance leaves a factor of 100.
void expectMatchesFiniteDifferences(Problem &p, const pkg::AttentionSpec &spec,
                                    std::vector<double> &x,
                                    const std::vector<double> &grad,
                                    const char *name) {
  const double h = 1e-5;
  for (size_t e = 0; e < x.size(); ++e) {
    const double saved = x[e];
    x[e] = saved + h;
    const double up = p.loss(spec);
    x[e] = saved - h;
    const double down = p.loss(spec);
    x[e] = saved;
    const double fd = (up - down) / (2 * h);
    ASSERT_NEAR(grad[e], fd, 1e-8 * std::max(1.0, std::fabs(fd)))
        << name << " element " << e;
  }
}

/// attentionBackward's dq, dk and dv against finite differences.
void expectGradientsMatch(Problem &p, const pkg::AttentionSpec &spec) {
  Status st = p.backward(spec);
  ASSERT_TRUE(st.isOk()) << st.message();
  expectMatchesFiniteDifferences(p, spec, p.q, p.dq, "dq");
  expectMatchesFiniteDifferences(p, spec, p.k, p.dk, "dk");
  expectMatchesFiniteDifferences(p, spec, p.v, p.dv, "dv");
}

pkg::AttentionSpec specWithScale(double scale) {
  pkg::AttentionSpec spec;
  spec.scale = scale;
  return spec;
}

TEST(LibAttentionGrad, NoMask) {
  Problem p({1, 2, 1, 5, 7, 4, 3});
  expectGradientsMatch(p, specWithScale(0.5));
}

TEST(LibAttentionGrad, Causal) {
  Problem p({2, 2, 2, 6, 6, 8, 5});
  pkg::AttentionSpec spec = specWithScale(0.35);
  spec.causal = true;
  expectGradientsMatch(p, spec);
}

TEST(LibAttentionGrad, BottomRightCausal) {
  pkg::AttentionSpec spec = specWithScale(0.4);
  spec.causal = true;
  spec.bottomRight = true;
  Problem wide({1, 2, 1, 3, 8, 4, 5});
  expectGradientsMatch(wide, spec);
  spec.windowLeft = 3;
  Problem tall({1, 2, 2, 8, 5, 4, 4}); // rows 0-2 see no key
  expectGradientsMatch(tall, spec);
}

TEST(LibAttentionGrad, SlidingWindow) {
  Problem p({1, 2, 1, 9, 9, 4, 6});
  pkg::AttentionSpec spec = specWithScale(0.5);
  spec.windowLeft = 2;
  spec.windowRight = 1;
  expectGradientsMatch(p, spec);
}

TEST(LibAttentionGrad, MaskRegionWithHoles) {
  // Allowed iff (q_idx + k_idx) % 3 != 0.
  Problem p({1, 2, 2, 7, 8, 5, 4});
  pkg::AttentionSpec spec = specWithScale(0.5);
  spec.mask = pkg::Region{4,
                          {op("arith.addi", {2, 3}, "index"),
                           op("arith.constant", {}, "index", "", 0, 3),
                           op("arith.remsi", {4, 5}, "index"),
                           op("arith.constant", {}, "index", "", 0, 0),
                           op("arith.cmpi", {6, 7}, "i1", "ne")},
                          8};
  expectGradientsMatch(p, spec);
}

TEST(LibAttentionGrad, RowWithoutAllowedKeysHasZeroGradient) {
  // Allowed iff q_idx != 2: row 2 attends nothing, in every head.
  Problem p({1, 2, 1, 4, 6, 4, 3});
  pkg::AttentionSpec spec = specWithScale(0.5);
  spec.mask = pkg::Region{4,
                          {op("arith.constant", {}, "index", "", 0, 2),
                           op("arith.cmpi", {2, 4}, "i1", "ne")},
                          5};
  expectGradientsMatch(p, spec);
  for (int64_t h = 0; h < 2; ++h)
    for (int64_t d = 0; d < 4; ++d)
      EXPECT_EQ(p.dq[(h * 4 + 2) * 4 + d], 0.0) << "h " << h << " d " << d;
  // The row contributes nothing, whatever its dout: no 0 * inf.
  Problem poisoned = p;
  for (int64_t h = 0; h < 2; ++h)
    for (int64_t d = 0; d < 3; ++d)
      poisoned.dout[(h * 4 + 2) * 3 + d] = d ? kInf : kNaN;
  ASSERT_TRUE(poisoned.backward(spec).isOk());
  EXPECT_EQ(poisoned.dq, p.dq);
  EXPECT_EQ(poisoned.dk, p.dk);
  EXPECT_EQ(poisoned.dv, p.dv);
}

TEST(LibAttentionGrad, AlibiScoreRegion) {
  Problem p({1, 4, 2, 6, 6, 4, 3});
  pkg::AttentionSpec spec = specWithScale(0.5);
  spec.causal = true;
  spec.score = alibiScore(4);
  expectGradientsMatch(p, spec);
}

TEST(LibAttentionGrad, SoftcapScoreRegion) {
  // Raw scores reach 12, where the cap of 5 bends them.
  Problem p({1, 2, 1, 6, 8, 4, 3});
  pkg::AttentionSpec spec = specWithScale(3);
  spec.score = softcapScore(5);
  expectGradientsMatch(p, spec);
}

TEST(LibAttentionGrad, GroupedQueryAttention) {
  Problem p({2, 4, 2, 5, 7, 6, 4});
  expectGradientsMatch(p, specWithScale(0.4));
}

TEST(LibAttentionGrad, MultiQueryAttention) {
  Problem p({1, 4, 1, 6, 4, 4, 8});
  pkg::AttentionSpec spec = specWithScale(0.5);
  spec.causal = true;
  expectGradientsMatch(p, spec);
}

TEST(LibAttentionGrad, DeltaIsTheRowSumOfOutTimesDout) {
  const AttentionShape shape{1, 1, 1, 2, 1, 1, 3};
  const std::vector<double> out = {1, 2, 3, 4, 5, 6};
  const std::vector<double> dout = {1, 0, -1, 0.5, 0.5, 0.5};
  std::vector<double> delta(2, kNaN);
  ASSERT_TRUE(
      attentionGradDelta(shape, out.data(), dout.data(), delta.data()).isOk());
  EXPECT_EQ(delta, (std::vector<double>{-2, 7.5}));
}

/// The split functions against attentionBackward: attentionGradKV's dk and
/// dv are its own, its accumulator gains exactly its dq, with or without a
/// separate input, and attentionGradQ's dq is its own.
TEST(LibAttentionGrad, SplitFunctionsAgreeWithBackward) {
  Problem p({2, 4, 2, 5, 7, 6, 4});
  pkg::AttentionSpec spec = specWithScale(0.4);
  spec.causal = true;
  spec.score = softcapScore(2);
  ASSERT_TRUE(p.backward(spec).isOk());
  std::vector<double> out, lse;
  p.forward(spec, out, lse);
  std::vector<double> delta(lse.size(), kNaN);
  ASSERT_TRUE(
      attentionGradDelta(p.shape, out.data(), p.dout.data(), delta.data())
          .isOk());

  Problem inputs(p.shape, 5); // its q is the accumulator's start
  const std::vector<double> &dqIn = inputs.q;
  std::vector<double> dk(p.dk.size(), kNaN), dv(p.dv.size(), kNaN),
      dqOut(p.dq.size(), kNaN);
  auto gradKV = [&](const double *in, double *accum) {
    Status st = attentionGradKV(spec, p.shape, p.q.data(), p.k.data(),
                                p.v.data(), lse.data(), delta.data(),
                                p.dout.data(), in, dk.data(), dv.data(), accum);
    ASSERT_TRUE(st.isOk()) << st.message();
    EXPECT_EQ(dk, p.dk);
    EXPECT_EQ(dv, p.dv);
  };
  gradKV(dqIn.data(), dqOut.data());
  for (size_t e = 0; e < dqOut.size(); ++e)
    ASSERT_NEAR(dqOut[e], dqIn[e] + p.dq[e], 1e-13) << e;
  std::vector<double> inPlace = dqIn;
  gradKV(inPlace.data(), inPlace.data());
  EXPECT_EQ(inPlace, dqOut);
  std::vector<double> fromZero(p.dq.size(), kNaN);
  gradKV(nullptr, fromZero.data());
  for (size_t e = 0; e < fromZero.size(); ++e)
    ASSERT_NEAR(fromZero[e], p.dq[e], 1e-13) << e;
  gradKV(nullptr, nullptr);

  std::vector<double> dq(p.dq.size(), kNaN);
  ASSERT_TRUE(attentionGradQ(spec, p.shape, p.q.data(), p.k.data(), p.v.data(),
                             lse.data(), delta.data(), p.dout.data(), dq.data())
                  .isOk());
  EXPECT_EQ(dq, p.dq);
}

TEST(LibAttentionGrad, NanScorePropagates) {
  Problem p({1, 1, 1, 2, 3, 2, 2});
  p.k[0] = kNaN;
  ASSERT_TRUE(p.backward(specWithScale(1)).isOk());
  for (const std::vector<double> *grad : {&p.dq, &p.dk, &p.dv})
    EXPECT_TRUE(std::isnan((*grad)[0]));
}

TEST(LibAttentionGrad, RejectsBadInput) {
  Problem p({1, 2, 1, 3, 3, 2, 2});
  // floor has no useful gradient: refused before anything is written.
  pkg::AttentionSpec floor = specWithScale(1);
  floor.score = pkg::Region{5, {op("math.floor", {0}, "f32")}, 5};
  EXPECT_EQ(p.backward(floor).message(),
            "score region: op 0 (math.floor) is piecewise constant in the "
            "score; its gradient is not defined");
  for (const std::vector<double> *grad : {&p.dq, &p.dk, &p.dv})
    for (double x : *grad)
      ASSERT_TRUE(std::isnan(x)) << "written before failing";

  EXPECT_EQ(attentionBackward(specWithScale(1), p.shape, p.q.data(), p.k.data(),
                              p.v.data(), p.dout.data(), p.dq.data(), nullptr,
                              p.dv.data())
                .message(),
            "attention: dk is null");
  EXPECT_TRUE(std::isnan(p.dq[0]));
  const std::vector<double> rows(6, 0.0);
  EXPECT_EQ(attentionGradQ(specWithScale(1), p.shape, p.q.data(), p.k.data(),
                           p.v.data(), rows.data(), rows.data(), p.dout.data(),
                           nullptr)
                .message(),
            "attention: dq is null");
  EXPECT_EQ(attentionGradKV(specWithScale(1), p.shape, p.q.data(), p.k.data(),
                            p.v.data(), rows.data(), nullptr, p.dout.data(),
                            nullptr, p.dk.data(), p.dv.data(), nullptr)
                .message(),
            "attention: delta is null");
  EXPECT_EQ(attentionGradKV(specWithScale(1), p.shape, p.q.data(), p.k.data(),
                            p.v.data(), rows.data(), rows.data(), p.dout.data(),
                            p.q.data(), p.dk.data(), p.dv.data(), nullptr)
                .message(),
            "attention: dqAccumIn is given without dqAccumOut to add to");
  AttentionShape odd = p.shape;
  odd.headsQ = 3;
  odd.headsKV = 2;
  EXPECT_EQ(attentionGradDelta(odd, p.dout.data(), p.dout.data(), p.dq.data())
                .message(),
            "attention shape: headsQ (3) must be a multiple of headsKV (2)");

  // Undefined behaviour names the pair: s + fptosi(1.0 / (q_idx - k_idx))
  // converts infinity on the diagonal.
  pkg::AttentionSpec convert = specWithScale(1);
  convert.score = pkg::Region{
      5,
      {op("arith.subi", {3, 4}, "index"), op("arith.index_cast", {5}, "i64"),
       op("arith.sitofp", {6}, "f32"), op("arith.constant", {}, "f32", "", 1.0),
       op("arith.divf", {8, 7}, "f32"), op("arith.fptosi", {9}, "i32"),
       op("arith.sitofp", {10}, "f32"), op("arith.addf", {0, 11}, "f32")},
      12};
  EXPECT_EQ(attentionGradKV(convert, p.shape, p.q.data(), p.k.data(),
                            p.v.data(), rows.data(), rows.data(), p.dout.data(),
                            nullptr, p.dk.data(), p.dv.data(), nullptr)
                .message(),
            "score region at b=0 h=0 q_idx=0 k_idx=0: op 5 (arith.fptosi): "
            "value out of range of the result type");
}

} // namespace
