//===- DType.cpp - Conversions between float and narrow element types ----===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// All four narrow formats go through one encoder and one decoder
// parameterized by the format's shape. They compute in double, where every
// float and every narrow value is exact, so rounding is a single explicit
// step.
//
//===----------------------------------------------------------------------===//

#include "lib/dtype/DType.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace attnc {

namespace {

/// A binary floating-point format with a sign bit, `expBits` exponent bits
/// and `mantBits` stored mantissa bits. With `ieeeSpecials`, the all-ones
/// exponent holds infinity and NaNs (IEEE 754); without it, only the
/// all-ones pattern is NaN and there is no infinity (the "fn" fp8 formats).
struct Format {
  int expBits;
  int mantBits;
  bool ieeeSpecials;

  int bias() const { return (1 << (expBits - 1)) - 1; }
  int minNormalExp() const { return 1 - bias(); }
  uint32_t expAllOnes() const { return (1u << expBits) - 1; }
  uint32_t mantMask() const { return (1u << mantBits) - 1; }
  uint32_t signBit() const { return 1u << (expBits + mantBits); }
  uint32_t nanBits() const {
    return ieeeSpecials ? expAllOnes() << mantBits | 1u << (mantBits - 1)
                        : expAllOnes() << mantBits | mantMask();
  }
  uint32_t maxFiniteBits() const {
    return ieeeSpecials ? (expAllOnes() - 1) << mantBits | mantMask()
                        : expAllOnes() << mantBits | (mantMask() - 1);
  }
  /// What infinity and overflowing values become.
  uint32_t overflowBits() const {
    return ieeeSpecials ? expAllOnes() << mantBits : nanBits();
  }
};

constexpr Format kBF16{8, 7, true};
constexpr Format kF16{5, 10, true};
constexpr Format kF8E4M3FN{4, 3, false};
constexpr Format kF8E5M2{5, 2, true};

double roundHalfToEven(double x) {
  double floor = std::floor(x);
  double fraction = x - floor;
  if (fraction != 0.5)
    return fraction < 0.5 ? floor : floor + 1;
  return std::fmod(floor, 2.0) == 0 ? floor : floor + 1;
}

uint32_t encode(float value, Format format) {
  uint32_t sign = std::signbit(value) ? format.signBit() : 0;
  if (std::isnan(value))
    return sign | format.nanBits();
  if (std::isinf(value))
    return sign | format.overflowBits();
  double magnitude = std::fabs(static_cast<double>(value));
  if (magnitude == 0)
    return sign;
  int exp;
  std::frexp(magnitude, &exp); // magnitude in [2^(exp-1), 2^exp)
  // Values below the smallest normal share the subnormal spacing.
  int binade = std::max(exp - 1, format.minNormalExp());
  // Count of quanta (units in the last place of this binade); a count of
  // 2^(mantBits+1) after rounding up lands on the next binade, which the
  // addition below encodes correctly.
  double quanta =
      roundHalfToEven(std::ldexp(magnitude, format.mantBits - binade));
  uint64_t bits =
      (static_cast<uint64_t>(binade + format.bias() - 1) << format.mantBits) +
      static_cast<uint64_t>(quanta);
  if (bits > format.maxFiniteBits())
    return sign | format.overflowBits();
  return sign | static_cast<uint32_t>(bits);
}

float decode(uint32_t bits, Format format) {
  bool negative = bits & format.signBit();
  uint32_t exp = bits >> format.mantBits & format.expAllOnes();
  uint32_t mant = bits & format.mantMask();
  if ((bits & ~format.signBit()) == format.nanBits() ||
      (format.ieeeSpecials && exp == format.expAllOnes() && mant != 0))
    return std::copysign(std::numeric_limits<float>::quiet_NaN(),
                         negative ? -1.0f : 1.0f);
  double magnitude;
  if (format.ieeeSpecials && exp == format.expAllOnes())
    magnitude = std::numeric_limits<double>::infinity();
  else if (exp == 0)
    magnitude = std::ldexp(mant, format.minNormalExp() - format.mantBits);
  else
    magnitude =
        std::ldexp(mant | 1u << format.mantBits,
                   static_cast<int>(exp) - format.bias() - format.mantBits);
  return static_cast<float>(negative ? -magnitude : magnitude);
}

template <typename T> T loadRaw(const void *base, int64_t index) {
  T value;
  std::memcpy(&value, static_cast<const char *>(base) + index * sizeof(T),
              sizeof(T));
  return value;
}

template <typename T> void storeRaw(void *base, int64_t index, T value) {
  std::memcpy(static_cast<char *>(base) + index * sizeof(T), &value, sizeof(T));
}

/// Rounds to nearest (ties away from zero), saturating at T's range; NaN
/// becomes 0.
template <typename T> T saturatingRound(double value) {
  if (std::isnan(value))
    return 0;
  // Both bounds are powers of two or one less; compare against the exact
  // power-of-two limits so that int64's upper bound does not round up.
  double rounded = std::round(value);
  double upper = std::ldexp(1.0, std::numeric_limits<T>::digits);
  if (rounded >= upper)
    return std::numeric_limits<T>::max();
  if (rounded < -upper)
    return std::numeric_limits<T>::min();
  return static_cast<T>(rounded);
}

} // namespace

uint16_t floatToBF16(float value) {
  return static_cast<uint16_t>(encode(value, kBF16));
}
float bf16ToFloat(uint16_t bits) { return decode(bits, kBF16); }

uint16_t floatToF16(float value) {
  return static_cast<uint16_t>(encode(value, kF16));
}
float f16ToFloat(uint16_t bits) { return decode(bits, kF16); }

uint8_t floatToF8E4M3FN(float value) {
  return static_cast<uint8_t>(encode(value, kF8E4M3FN));
}
float f8E4M3FNToFloat(uint8_t bits) { return decode(bits, kF8E4M3FN); }

uint8_t floatToF8E5M2(float value) {
  return static_cast<uint8_t>(encode(value, kF8E5M2));
}
float f8E5M2ToFloat(uint8_t bits) { return decode(bits, kF8E5M2); }

double loadElementAsDouble(const void *base, pkg::DType type,
                           int64_t elementIndex) {
  switch (type) {
  case pkg::DType::F32:
    return loadRaw<float>(base, elementIndex);
  case pkg::DType::F64:
    return loadRaw<double>(base, elementIndex);
  case pkg::DType::F16:
    return f16ToFloat(loadRaw<uint16_t>(base, elementIndex));
  case pkg::DType::BF16:
    return bf16ToFloat(loadRaw<uint16_t>(base, elementIndex));
  case pkg::DType::F8E4M3FN:
    return f8E4M3FNToFloat(loadRaw<uint8_t>(base, elementIndex));
  case pkg::DType::F8E5M2:
    return f8E5M2ToFloat(loadRaw<uint8_t>(base, elementIndex));
  case pkg::DType::I1:
    return loadRaw<uint8_t>(base, elementIndex) != 0 ? 1.0 : 0.0;
  case pkg::DType::I32:
    return loadRaw<int32_t>(base, elementIndex);
  case pkg::DType::I64:
    return static_cast<double>(loadRaw<int64_t>(base, elementIndex));
  }
  // Only a value cast from outside the enum gets here.
  return std::numeric_limits<double>::quiet_NaN();
}

void storeElementFromDouble(void *base, pkg::DType type, int64_t elementIndex,
                            double value) {
  float narrowed = static_cast<float>(value);
  switch (type) {
  case pkg::DType::F32:
    return storeRaw(base, elementIndex, narrowed);
  case pkg::DType::F64:
    return storeRaw(base, elementIndex, value);
  case pkg::DType::F16:
    return storeRaw(base, elementIndex, floatToF16(narrowed));
  case pkg::DType::BF16:
    return storeRaw(base, elementIndex, floatToBF16(narrowed));
  case pkg::DType::F8E4M3FN:
    return storeRaw(base, elementIndex, floatToF8E4M3FN(narrowed));
  case pkg::DType::F8E5M2:
    return storeRaw(base, elementIndex, floatToF8E5M2(narrowed));
  case pkg::DType::I1:
    return storeRaw<uint8_t>(base, elementIndex, value != 0 ? 1 : 0);
  case pkg::DType::I32:
    return storeRaw(base, elementIndex, saturatingRound<int32_t>(value));
  case pkg::DType::I64:
    return storeRaw(base, elementIndex, saturatingRound<int64_t>(value));
  }
}

} // namespace attnc
