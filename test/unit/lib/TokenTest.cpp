//===- TokenTest.cpp - Tests for the fp64 embedding and loss references ---===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// embedding and its gradient on a small table; crossEntropy and tokenMean
// against values written out by hand, their
// gradients against central differences of mean(cross_entropy(logits)),
// with an ignored label among the rows.
//
//===----------------------------------------------------------------------===//

#include "lib/reference/Token.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

using namespace attnc::ref;

namespace {

TEST(LibToken, EmbeddingPicksAndScattersRows) {
  // Table rows (1, 2), (3, 4), (5, 6); ids 2, 0, 2, 7.
  std::vector<double> table = {1, 2, 3, 4, 5, 6}, ids = {2, 0, 2, 7}, out(8),
                      dout = {1, 1, 10, 10, 100, 100, 5, 5}, dtable(6);
  const TableShape shape{3, 2, 4};
  embedding(shape, table.data(), ids.data(), out.data());
  EXPECT_EQ(std::vector<double>(out.begin(), out.begin() + 6),
            (std::vector<double>{5, 6, 1, 2, 5, 6}));
  EXPECT_TRUE(std::isnan(out[6]) && std::isnan(out[7])) << "id out of range";
  std::vector<double> order(4), bounds(4);
  tokenOrder(shape, ids.data(), order.data(), bounds.data());
  EXPECT_EQ(order, (std::vector<double>{1, 0, 2, -1}))
      << "id 0's token, then id 2's in token order; the bad id's last";
  EXPECT_EQ(bounds, (std::vector<double>{0, 1, 1, 3}));
  embeddingGrad(shape, order.data(), bounds.data(), dout.data(), dtable.data());
  EXPECT_EQ(dtable, (std::vector<double>{10, 10, 0, 0, 101, 101}));
}

TEST(LibToken, EmbeddingGradReadsNothingOutOfBounds) {
  // Bounds past the tokens and a place of no token: clamped, as the kernel
  // clamps them.
  std::vector<double> order = {1, -1}, bounds = {0, 5}, dout = {1, 2, 3, 4},
                      dtable(2);
  embeddingGrad({1, 2, 2}, order.data(), bounds.data(), dout.data(),
                dtable.data());
  EXPECT_EQ(dtable, (std::vector<double>{6, 8}));
}

TEST(LibToken, CrossEntropyOfARow) {
  // Logits (0, log 3): softmax (1/4, 3/4); lse = log 4.
  std::vector<double> logits = {0, std::log(3.0), 0, std::log(3.0),
                                0, std::log(3.0)},
                      labels = {1, -100, 7}, losses(3), lse(3);
  crossEntropy({3, 2, -100}, logits.data(), labels.data(), losses.data(),
               lse.data());
  EXPECT_DOUBLE_EQ(lse[0], std::log(4.0));
  EXPECT_DOUBLE_EQ(losses[0], std::log(4.0) - std::log(3.0));
  EXPECT_EQ(losses[1], 0) << "an ignored label";
  EXPECT_TRUE(std::isnan(losses[2])) << "a label out of range";
}

TEST(LibToken, TokenMeanSkipsIgnoredTokens) {
  std::vector<double> values = {1, 100, 3}, labels = {0, 2, 1}, dvalues(3);
  EXPECT_DOUBLE_EQ(tokenMean(3, 2, values.data(), labels.data()), 2);
  tokenMeanGrad(3, 2, labels.data(), 4, dvalues.data());
  EXPECT_EQ(dvalues, (std::vector<double>{2, 0, 2}));
  EXPECT_TRUE(std::isnan(tokenMean(1, 2, values.data(), labels.data() + 1)))
      << "no token counts";
}

TEST(LibToken, GradientMatchesFiniteDifferences) {
  constexpr int64_t kRows = 6, kClasses = 5, kIgnore = 2;
  constexpr double kStep = 1e-6;
  std::mt19937 gen(7);
  std::normal_distribution<double> normal;
  std::vector<double> logits(kRows * kClasses);
  for (double &v : logits)
    v = normal(gen);
  std::vector<double> labels = {0, 2, 4, 1, 3, 2};
  const LossShape shape{kRows, kClasses, kIgnore};
  auto loss = [&](const std::vector<double> &x) {
    std::vector<double> losses(kRows), lse(kRows);
    crossEntropy(shape, x.data(), labels.data(), losses.data(), lse.data());
    return tokenMean(kRows, kIgnore, losses.data(), labels.data());
  };
  std::vector<double> losses(kRows), lse(kRows), dlosses(kRows),
      dlogits(kRows * kClasses);
  crossEntropy(shape, logits.data(), labels.data(), losses.data(), lse.data());
  tokenMeanGrad(kRows, kIgnore, labels.data(), 1, dlosses.data());
  crossEntropyGrad(shape, logits.data(), labels.data(), lse.data(),
                   dlosses.data(), dlogits.data());
  for (size_t i = 0; i < logits.size(); ++i) {
    std::vector<double> up = logits, down = logits;
    up[i] += kStep;
    down[i] -= kStep;
    EXPECT_NEAR(dlogits[i], (loss(up) - loss(down)) / (2 * kStep), 1e-8)
        << "dlogits[" << i << "]";
  }
}

} // namespace
