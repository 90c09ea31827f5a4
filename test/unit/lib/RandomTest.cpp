//===- RandomTest.cpp - Portable random inputs ----------------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "lib/support/Random.h"

#include <gtest/gtest.h>

namespace attnc {
namespace {

TEST(LibRandom, SplitMix64MatchesTheReferenceSequence) {
  // The first outputs of the reference implementation for seed 0.
  SplitMix64 bits(0);
  EXPECT_EQ(bits.next(), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(bits.next(), 0x6e789e6aa1b965f4ULL);
  EXPECT_EQ(bits.next(), 0x06c45d188009454fULL);
}

TEST(LibRandom, UniformIsInTheUnitInterval) {
  SplitMix64 bits(7);
  for (int i = 0; i < 100000; ++i) {
    double u = bits.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
  }
}

TEST(LibRandom, NormalValuesAreFixedBySeed) {
  // Integer and exactly rounded arithmetic only: these hold everywhere.
  PortableNormal normal(1234);
  PortableNormal again(1234);
  for (int i = 0; i < 1000; ++i)
    ASSERT_EQ(normal.next(), again.next());
  PortableNormal first(0);
  SplitMix64 bits(0);
  double sum = 0;
  for (int i = 0; i < 12; ++i)
    sum += static_cast<double>(bits.next() >> 11) * 0x1.0p-53;
  EXPECT_EQ(first.next(), sum - 6.0);
}

TEST(LibRandom, SkipMovesAsFarAsDrawing) {
  SplitMix64 drawn(99), skipped(99);
  for (int i = 0; i < 1000; ++i)
    drawn.next();
  skipped.skip(1000);
  EXPECT_EQ(drawn.next(), skipped.next());
  PortableNormal normal(5), jumped(5);
  for (int i = 0; i < 777; ++i)
    normal.next();
  jumped.skip(777);
  for (int i = 0; i < 10; ++i)
    ASSERT_EQ(normal.next(), jumped.next());
}

TEST(LibRandom, NormalHasUnitVariance) {
  PortableNormal normal(42);
  const int n = 200000;
  double sum = 0, squares = 0;
  for (int i = 0; i < n; ++i) {
    double x = normal.next();
    ASSERT_LE(x, 6.0);
    ASSERT_GE(x, -6.0);
    sum += x;
    squares += x * x;
  }
  double mean = sum / n;
  EXPECT_NEAR(mean, 0.0, 0.01);
  EXPECT_NEAR(squares / n - mean * mean, 1.0, 0.02);
}

} // namespace
} // namespace attnc
