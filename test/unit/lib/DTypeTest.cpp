//===- DTypeTest.cpp - Tests for the narrow float conversions -------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "lib/dtype/DType.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace attnc;

namespace {

/// One narrow format, seen through its conversion functions.
struct Format {
  const char *name;
  int bits;
  uint32_t (*encode)(float);
  float (*decode)(uint32_t);
  uint32_t maxFiniteBits;
  int numNaNs; // bit patterns decoding to NaN
};

const Format kFormats[] = {
    {"bf16", 16, [](float f) -> uint32_t { return floatToBF16(f); },
     [](uint32_t b) { return bf16ToFloat(static_cast<uint16_t>(b)); }, 0x7F7F,
     2 * 127},
    {"f16", 16, [](float f) -> uint32_t { return floatToF16(f); },
     [](uint32_t b) { return f16ToFloat(static_cast<uint16_t>(b)); }, 0x7BFF,
     2 * 1023},
    {"f8e4m3fn", 8, [](float f) -> uint32_t { return floatToF8E4M3FN(f); },
     [](uint32_t b) { return f8E4M3FNToFloat(static_cast<uint8_t>(b)); }, 0x7E,
     2},
    {"f8e5m2", 8, [](float f) -> uint32_t { return floatToF8E5M2(f); },
     [](uint32_t b) { return f8E5M2ToFloat(static_cast<uint8_t>(b)); }, 0x7B,
     2 * 3},
};

void PrintTo(const Format &format, std::ostream *os) { *os << format.name; }

class LibDTypeFormat : public ::testing::TestWithParam<Format> {};

/// Every bit pattern decodes to a float that encodes back to the same
/// pattern, except NaNs, which stay NaN with their sign.
TEST_P(LibDTypeFormat, RoundTripsEveryBitPattern) {
  const Format &format = GetParam();
  int numNaNs = 0;
  for (uint32_t bits = 0; bits < (1u << format.bits); ++bits) {
    float value = format.decode(bits);
    if (std::isnan(value)) {
      ++numNaNs;
      float again = format.decode(format.encode(value));
      EXPECT_TRUE(std::isnan(again))
          << format.name << " bits 0x" << std::hex << bits;
      EXPECT_EQ(std::signbit(again), std::signbit(value))
          << format.name << std::hex << bits;
      continue;
    }
    EXPECT_EQ(format.encode(value), bits) << format.name << " value " << value;
  }
  EXPECT_EQ(numNaNs, format.numNaNs) << format.name;
}

/// Positive finite patterns decode to strictly increasing values; the next
/// pattern is infinity (IEEE-style formats) or NaN (f8e4m3fn).
TEST_P(LibDTypeFormat, DecodesMonotonically) {
  const Format &format = GetParam();
  for (uint32_t bits = 1; bits <= format.maxFiniteBits; ++bits)
    ASSERT_LT(format.decode(bits - 1), format.decode(bits))
        << format.name << " bits " << bits;
  float next = format.decode(format.maxFiniteBits + 1);
  EXPECT_TRUE(std::isinf(next) || std::isnan(next)) << format.name;
  EXPECT_EQ(format.decode(0), 0.0f);
  EXPECT_TRUE(std::signbit(format.decode(1u << (format.bits - 1))))
      << "negative zero";
}

/// Round to nearest even by search: the two neighbouring patterns of |value|
/// in the table of all non-negative values, the nearer one, the even one on
/// a tie. Past the largest finite value, the upper neighbour is the pattern
/// after it (infinity or NaN), one ulp further.
uint32_t nearestBySearch(const Format &format, const std::vector<double> &table,
                         float value) {
  uint32_t sign = std::signbit(value) ? 1u << (format.bits - 1) : 0;
  double magnitude = std::fabs(static_cast<double>(value));
  uint32_t low = static_cast<uint32_t>(
      std::upper_bound(table.begin(), table.end(), magnitude) - table.begin() -
      1);
  double lowValue = table[low];
  double highValue =
      low + 1 < table.size() ? table[low + 1] : 2 * lowValue - table[low - 1];
  if (magnitude == lowValue)
    return sign | low;
  double below = magnitude - lowValue, above = highValue - magnitude;
  uint32_t chosen = below < above   ? low
                    : above < below ? low + 1
                                    : (low % 2 == 0 ? low : low + 1);
  return sign | chosen;
}

TEST_P(LibDTypeFormat, RoundsLikeSearchOnMidpointsAndNeighbours) {
  const Format &format = GetParam();
  std::vector<double> table;
  for (uint32_t bits = 0; bits <= format.maxFiniteBits; ++bits)
    table.push_back(format.decode(bits));
  // Every midpoint between adjacent finite values (exact in float), and
  // values just off it on both sides.
  std::vector<float> values;
  for (uint32_t bits = 0; bits < format.maxFiniteBits; ++bits) {
    float low = static_cast<float>(table[bits]),
          high = static_cast<float>(table[bits + 1]);
    float mid = static_cast<float>((static_cast<double>(low) + high) / 2);
    values.insert(values.end(),
                  {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, high)});
  }
  // Around the overflow threshold.
  float top = format.decode(format.maxFiniteBits);
  float ulp = top - format.decode(format.maxFiniteBits - 1);
  float threshold = top + ulp / 2;
  values.insert(values.end(), {threshold, std::nextafter(threshold, 0.0f),
                               std::nextafter(threshold, INFINITY), top + ulp});
  for (float magnitude : values)
    for (float value : {magnitude, -magnitude})
      ASSERT_EQ(format.encode(value), nearestBySearch(format, table, value))
          << format.name << " value " << value;
}

INSTANTIATE_TEST_SUITE_P(Lib, LibDTypeFormat, ::testing::ValuesIn(kFormats),
                         [](const ::testing::TestParamInfo<Format> &info) {
                           return std::string(info.param.name);
                         });

float fromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

TEST(LibDType, TiesRoundToEven) {
  // bf16 keeps 7 mantissa bits: 1 + 2^-8 is halfway between 1 and 1 + 2^-7.
  EXPECT_EQ(floatToBF16(1.0f + 0x1p-8f), 0x3F80);
  EXPECT_EQ(floatToBF16(1.0f + 3 * 0x1p-8f), 0x3F82);
  EXPECT_EQ(floatToBF16(fromBits(0x3F808001)), 0x3F81); // just above the tie
  // f16 keeps 10: 1 + 2^-11 is halfway between 1 and 1 + 2^-10.
  EXPECT_EQ(floatToF16(1.0f + 0x1p-11f), 0x3C00);
  EXPECT_EQ(floatToF16(1.0f + 3 * 0x1p-11f), 0x3C02);
  EXPECT_EQ(floatToF16(-(1.0f + 3 * 0x1p-11f)), 0xBC02);
  // Subnormal f16: the smallest is 2^-24; half of it ties to 0, 1.5 of it
  // ties up to 2.
  EXPECT_EQ(floatToF16(0x1p-24f), 0x0001);
  EXPECT_EQ(floatToF16(0x1p-25f), 0x0000);
  EXPECT_EQ(floatToF16(0x1.8p-24f), 0x0002);
  EXPECT_EQ(floatToF16(-0x1p-26f), 0x8000);
  // The largest subnormal rounds up into the smallest normal.
  EXPECT_EQ(floatToF16(0x1.ffcp-15f), 0x0400);
  // Overflow: 65520 is halfway between 65504 (odd) and 65536, so infinity.
  EXPECT_EQ(floatToF16(65504.0f), 0x7BFF);
  EXPECT_EQ(floatToF16(65519.0f), 0x7BFF);
  EXPECT_EQ(floatToF16(65520.0f), 0x7C00);
  EXPECT_EQ(floatToBF16(std::numeric_limits<float>::max()), 0x7F80);
  // Float subnormals survive in bf16.
  EXPECT_EQ(floatToBF16(0x1p-133f), 0x0001);
  EXPECT_EQ(bf16ToFloat(0x0001), 0x1p-133f);
}

TEST(LibDType, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(floatToBF16(inf), 0x7F80);
  EXPECT_EQ(floatToBF16(-inf), 0xFF80);
  EXPECT_EQ(floatToF16(-inf), 0xFC00);
  EXPECT_TRUE(std::isinf(f16ToFloat(0x7C00)));
  EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBF16(NAN))));
  EXPECT_TRUE(std::isnan(f16ToFloat(floatToF16(-NAN))));
  EXPECT_TRUE(std::signbit(f16ToFloat(floatToF16(-NAN))));
}

#ifdef __FLT16_MAX__
/// The compiler's own _Float16 conversion is an independent reference.
TEST(LibDType, F16MatchesCompilerConversion) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  std::uniform_int_distribution<int> exponent(-27, 17);
  for (int i = 0; i < 200000; ++i) {
    float value =
        std::ldexp(mantissa(rng), exponent(rng)) * (i % 2 ? -1.0f : 1.0f);
    _Float16 half = static_cast<_Float16>(value);
    uint16_t expected;
    std::memcpy(&expected, &half, sizeof(expected));
    ASSERT_EQ(floatToF16(value), expected) << "value " << value;
  }
}
#endif

TEST(LibDType, Fp8SpotChecks) {
  const float inf = std::numeric_limits<float>::infinity();
  // e4m3fn: bias 7, no infinity, largest 448, NaN = S.1111.111.
  EXPECT_EQ(floatToF8E4M3FN(1.0f), 0x38);
  EXPECT_EQ(floatToF8E4M3FN(-2.0f), 0xC0);
  EXPECT_EQ(floatToF8E4M3FN(448.0f), 0x7E);
  EXPECT_EQ(floatToF8E4M3FN(464.0f), 0x7E); // tie, 0x7E is even
  EXPECT_EQ(floatToF8E4M3FN(465.0f), 0x7F); // overflow is NaN
  EXPECT_EQ(floatToF8E4M3FN(inf), 0x7F);
  EXPECT_EQ(floatToF8E4M3FN(-inf), 0xFF);
  EXPECT_EQ(floatToF8E4M3FN(0x1p-9f), 0x01); // smallest subnormal
  EXPECT_EQ(floatToF8E4M3FN(0x1p-10f), 0x00);
  EXPECT_EQ(floatToF8E4M3FN(0x1p-6f), 0x08); // smallest normal
  EXPECT_EQ(f8E4M3FNToFloat(0x7E), 448.0f);
  EXPECT_EQ(f8E4M3FNToFloat(0x77), 240.0f); // exponent 1110 is finite
  EXPECT_EQ(f8E4M3FNToFloat(0x78), 256.0f); // and so is 1111 below NaN
  EXPECT_TRUE(std::isnan(f8E4M3FNToFloat(0x7F)));
  EXPECT_TRUE(std::isnan(f8E4M3FNToFloat(0xFF)));
  // e5m2: bias 15, IEEE specials, largest 57344.
  EXPECT_EQ(floatToF8E5M2(1.0f), 0x3C);
  EXPECT_EQ(floatToF8E5M2(57344.0f), 0x7B);
  EXPECT_EQ(floatToF8E5M2(61440.0f), 0x7C); // tie with an odd largest value
  EXPECT_EQ(floatToF8E5M2(-inf), 0xFC);
  EXPECT_EQ(floatToF8E5M2(0x1p-16f), 0x01);
  EXPECT_EQ(floatToF8E5M2(1.25f), 0x3D);
  EXPECT_EQ(floatToF8E5M2(1.125f), 0x3C); // tie to even
  EXPECT_EQ(floatToF8E5M2(1.375f), 0x3E);
  EXPECT_TRUE(std::isinf(f8E5M2ToFloat(0x7C)));
  EXPECT_TRUE(std::isnan(f8E5M2ToFloat(0x7D)));
  EXPECT_TRUE(std::isnan(f8E5M2ToFloat(floatToF8E5M2(NAN))));
}

TEST(LibDType, LoadAndStoreEveryDType) {
  struct Case {
    pkg::DType type;
    double stored;
    double loaded;
  };
  const Case cases[] = {
      {pkg::DType::F64, 1.0 / 3, 1.0 / 3},
      {pkg::DType::F32, 1.0 / 3, static_cast<float>(1.0 / 3)},
      {pkg::DType::F16, 1.0 / 3,
       f16ToFloat(floatToF16(static_cast<float>(1.0 / 3)))},
      {pkg::DType::BF16, 1.0 / 3,
       bf16ToFloat(floatToBF16(static_cast<float>(1.0 / 3)))},
      {pkg::DType::F8E4M3FN, 0.3, 0.3125},
      {pkg::DType::F8E5M2, 0.3, 0.3125},
      {pkg::DType::I1, 0.5, 1},
      {pkg::DType::I1, 0, 0},
      {pkg::DType::I32, -2.5, -3},
      {pkg::DType::I32, 1e10, 2147483647},
      {pkg::DType::I32, NAN, 0},
      {pkg::DType::I64, -1e30, -0x1p63},
      {pkg::DType::I64, 1e30,
       0x1p63}, // int64 max, read back as the nearest double
      {pkg::DType::I64, 123456789012, 123456789012},
  };
  for (const Case &c : cases) {
    // Element 1 of a 3-element array, misaligned by one byte, neighbours
    // untouched.
    std::vector<uint8_t> buffer(1 + 3 * pkg::dtypeSize(c.type), 0xAB);
    storeElementFromDouble(buffer.data() + 1, c.type, 1, c.stored);
    EXPECT_EQ(loadElementAsDouble(buffer.data() + 1, c.type, 1), c.loaded)
        << pkg::dtypeName(c.type) << " " << c.stored;
    size_t size = pkg::dtypeSize(c.type);
    for (size_t i = 0; i < buffer.size(); ++i)
      if (i < 1 + size || i >= 1 + 2 * size)
        EXPECT_EQ(buffer[i], 0xAB) << pkg::dtypeName(c.type) << " byte " << i;
  }
}

TEST(LibDType, IntegerStoresSaturate) {
  int64_t value;
  storeElementFromDouble(&value, pkg::DType::I64, 0, 1e30);
  EXPECT_EQ(value, std::numeric_limits<int64_t>::max());
  storeElementFromDouble(&value, pkg::DType::I64, 0, -1e30);
  EXPECT_EQ(value, std::numeric_limits<int64_t>::min());
}

TEST(LibDType, NamesAndSizes) {
  for (pkg::DType type :
       {pkg::DType::F32, pkg::DType::F16, pkg::DType::BF16, pkg::DType::F64,
        pkg::DType::I1, pkg::DType::I32, pkg::DType::I64, pkg::DType::F8E4M3FN,
        pkg::DType::F8E5M2})
    EXPECT_EQ(pkg::parseDType(pkg::dtypeName(type)), type);
  EXPECT_EQ(pkg::dtypeName(pkg::DType::F8E4M3FN), "f8e4m3fn");
  EXPECT_EQ(pkg::dtypeSize(pkg::DType::BF16), 2u);
  EXPECT_EQ(pkg::dtypeSize(pkg::DType::I1), 1u);
  EXPECT_EQ(pkg::dtypeSize(pkg::DType::F64), 8u);
  EXPECT_FALSE(pkg::parseDType("f12"));
  EXPECT_FALSE(pkg::parseDType(""));
}

} // namespace
