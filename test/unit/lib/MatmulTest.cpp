//===- MatmulTest.cpp - Tests for the fp64 matmul reference ---------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Each layout of ref::matmul against products written out by hand and
// against one order of summation, and the shapes matmulShape accepts and
// refuses.
//
//===----------------------------------------------------------------------===//

#include "lib/reference/Matmul.h"

#include <gtest/gtest.h>

using namespace attnc;
using namespace attnc::ref;

namespace {

// a = [[1, 2, 3], [4, 5, 6]] (2 x 3), stored as is or transposed.
const std::vector<double> kA = {1, 2, 3, 4, 5, 6};
const std::vector<double> kATransposed = {1, 4, 2, 5, 3, 6};
// b = [[1, 0], [0, 1], [2, -1]] (3 x 2).
const std::vector<double> kB = {1, 0, 0, 1, 2, -1};
const std::vector<double> kBTransposed = {1, 0, 2, 0, 1, -1};
// a b
const std::vector<double> kProduct = {7, -1, 16, -1};

std::vector<double> product(pkg::MatmulSpec spec, const std::vector<double> &a,
                            const std::vector<double> &b) {
  std::vector<double> out(4);
  matmul(spec, MatmulShape{2, 3, 2}, a.data(), b.data(), out.data());
  return out;
}

TEST(LibMatmul, EveryLayoutComputesTheSameProduct) {
  EXPECT_EQ(product({false, false}, kA, kB), kProduct);
  EXPECT_EQ(product({false, true}, kA, kBTransposed), kProduct);
  EXPECT_EQ(product({true, false}, kATransposed, kB), kProduct);
}

// Every layout adds each element's products in order of l, so the three
// give the same bits on values whose sums round.
TEST(LibMatmul, EveryLayoutSumsInOneOrder) {
  const int64_t m = 5, k = 7, n = 6;
  std::vector<double> a(m * k), aT(m * k), b(k * n), bT(k * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t l = 0; l < k; ++l)
      aT[l * m + i] = a[i * k + l] = 1.0 / (3 + i * k + l);
  for (int64_t l = 0; l < k; ++l)
    for (int64_t j = 0; j < n; ++j)
      bT[j * k + l] = b[l * n + j] = 1.0 / (7 + l * n + j) - 0.05;
  std::vector<double> ordered(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t l = 0; l < k; ++l)
        ordered[i * n + j] += a[i * k + l] * b[l * n + j];
  auto run = [&](pkg::MatmulSpec spec, const std::vector<double> &x,
                 const std::vector<double> &y) {
    std::vector<double> out(m * n);
    matmul(spec, MatmulShape{m, k, n}, x.data(), y.data(), out.data());
    return out;
  };
  EXPECT_EQ(run({false, false}, a, b), ordered);
  EXPECT_EQ(run({false, true}, a, bT), ordered);
  EXPECT_EQ(run({true, false}, aT, b), ordered);
}

TEST(LibMatmul, LeadingDimsAreRows) {
  pkg::MatmulSpec linear{false, true};
  auto shape = matmulShape(linear, {2, 5, 8}, {3, 8}, {2, 5, 3});
  ASSERT_TRUE(shape.isOk()) << shape.status().message();
  EXPECT_EQ(shape->m, 10);
  EXPECT_EQ(shape->k, 8);
  EXPECT_EQ(shape->n, 3);
  pkg::MatmulSpec contraction{true, false};
  shape = matmulShape(contraction, {2, 5, 8}, {2, 5, 3}, {8, 3});
  ASSERT_TRUE(shape.isOk()) << shape.status().message();
  EXPECT_EQ(shape->m, 8);
  EXPECT_EQ(shape->k, 10);
  EXPECT_EQ(shape->n, 3);
}

TEST(LibMatmul, RefusesShapesThatDoNotFit) {
  auto refused = [](pkg::MatmulSpec spec, std::vector<int64_t> a,
                    std::vector<int64_t> b, std::vector<int64_t> out) {
    auto shape = matmulShape(spec, a, b, out);
    return shape.isOk() ? std::string() : shape.status().message();
  };
  EXPECT_EQ(refused({false, false}, {4, 8}, {7, 3}, {4, 3}),
            "shapes [4, 8], [7, 3] -> [4, 3] do not fit a matmul: a [rows, "
            "K], b [K, N] -> [rows, N]");
  EXPECT_EQ(refused({false, true}, {4, 8}, {3, 8}, {4, 8}),
            "shapes [4, 8], [3, 8] -> [4, 8] do not fit a matmul: a [rows, "
            "K], b [N, K] -> [rows, N]");
  EXPECT_EQ(refused({true, false}, {2, 4, 8}, {2, 5, 3}, {8, 3}),
            "shapes [2, 4, 8], [2, 5, 3] -> [8, 3] do not fit a matmul: a "
            "[rows, M], b [rows, N] -> [M, N]");
  EXPECT_NE(refused({false, false}, {8}, {8, 3}, {3}), "");
  EXPECT_NE(refused({true, true}, {4, 8}, {4, 3}, {8, 3}), "");
}

} // namespace
