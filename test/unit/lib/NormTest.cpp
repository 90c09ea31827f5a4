//===- NormTest.cpp - Tests for the fp64 norm references ------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// normRows against rows written out by hand; normRowsGrad and sumRows
// against central differences of L = sum(out * dout), for RMSNorm and
// LayerNorm.
//
//===----------------------------------------------------------------------===//

#include "lib/reference/Norm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

using namespace attnc::ref;

namespace {

TEST(LibNorm, NormalizesEachRow) {
  // Row (3, 4): mean of squares 12.5.
  std::vector<double> x = {3, 4}, w = {1, 2}, out(2), rstd(1);
  normRows({1, 2, false}, 0.0, x.data(), w.data(), nullptr, out.data(),
           rstd.data());
  EXPECT_DOUBLE_EQ(rstd[0], 1 / std::sqrt(12.5));
  EXPECT_DOUBLE_EQ(out[0], 3 / std::sqrt(12.5));
  EXPECT_DOUBLE_EQ(out[1], 8 / std::sqrt(12.5));
}

TEST(LibNorm, LayerNormCentresEachRow) {
  // Row (3, 5): mean 4, centred (-1, 1), variance 1.
  std::vector<double> x = {3, 5}, w = {1, 2}, bias = {10, 20}, out(2), rstd(1);
  normRows({1, 2, true}, 0.0, x.data(), w.data(), bias.data(), out.data(),
           rstd.data());
  EXPECT_DOUBLE_EQ(rstd[0], 1);
  EXPECT_DOUBLE_EQ(out[0], 9);
  EXPECT_DOUBLE_EQ(out[1], 22);
}

class LibNormGrad : public testing::TestWithParam<bool> {};

TEST_P(LibNormGrad, MatchesFiniteDifferences) {
  const bool centered = GetParam();
  constexpr int64_t kRows = 7, kWidth = 5, kPartials = 3;
  constexpr double kEpsilon = 1e-3, kStep = 1e-6;
  std::mt19937 gen(11);
  std::normal_distribution<double> normal;
  std::vector<double> x(kRows * kWidth), w(kWidth), dout(kRows * kWidth);
  for (auto *v : {&x, &w, &dout})
    for (double &e : *v)
      e = normal(gen);
  auto loss = [&](const std::vector<double> &xs,
                  const std::vector<double> &ws) {
    std::vector<double> out(kRows * kWidth), rstd(kRows);
    normRows({kRows, kWidth, centered}, kEpsilon, xs.data(), ws.data(), nullptr,
             out.data(), rstd.data());
    double sum = 0;
    for (size_t i = 0; i < out.size(); ++i)
      sum += out[i] * dout[i];
    return sum;
  };
  std::vector<double> out(kRows * kWidth), rstd(kRows), dx(kRows * kWidth),
      partial(kPartials * kWidth), dw(kWidth);
  normRows({kRows, kWidth, centered}, kEpsilon, x.data(), w.data(), nullptr,
           out.data(), rstd.data());
  normRowsGrad({kRows, kWidth, centered}, kPartials, x.data(), w.data(),
               rstd.data(), dout.data(), dx.data(), partial.data());
  sumRows(kPartials, kWidth, partial.data(), dw.data());
  for (size_t i = 0; i < x.size(); ++i) {
    std::vector<double> up = x, down = x;
    up[i] += kStep;
    down[i] -= kStep;
    EXPECT_NEAR(dx[i], (loss(up, w) - loss(down, w)) / (2 * kStep), 1e-6)
        << "dx[" << i << "]";
  }
  for (size_t d = 0; d < w.size(); ++d) {
    std::vector<double> up = w, down = w;
    up[d] += kStep;
    down[d] -= kStep;
    EXPECT_NEAR(dw[d], (loss(x, up) - loss(x, down)) / (2 * kStep), 1e-6)
        << "dw[" << d << "]";
  }
}

INSTANTIATE_TEST_SUITE_P(RmsAndLayer, LibNormGrad, testing::Bool());

TEST(LibNorm, PartialRowsTakeEveryPthRow) {
  // Rows 0 and 2 go to partial row 0, row 1 to partial row 1.
  std::vector<double> x = {1, 1, 1}, w = {1}, rstd = {1, 1, 1},
                      dout = {1, 10, 100}, dx(3), partial(2);
  normRowsGrad({3, 1, false}, 2, x.data(), w.data(), rstd.data(), dout.data(),
               dx.data(), partial.data());
  EXPECT_DOUBLE_EQ(partial[0], 101);
  EXPECT_DOUBLE_EQ(partial[1], 10);
}

} // namespace
