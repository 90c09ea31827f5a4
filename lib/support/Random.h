//===- Random.h - Test inputs that a seed fixes on every platform -*- C++
//-*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// std::normal_distribution is not specified: libstdc++ and libc++ turn the
// same engine state into different values, so a printed seed would not
// reproduce a failure elsewhere. These generators use integer arithmetic and
// exactly rounded IEEE double operations only, so a seed gives the same
// values with any C++ library, compiler and libm.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_LIB_SUPPORT_RANDOM_H
#define ATTNC_LIB_SUPPORT_RANDOM_H

#include <cstdint>

namespace attnc {

/// SplitMix64 (Steele, Lea and Flood): a 64-bit state advanced by a
/// constant and mixed; every seed is a good one.
class SplitMix64 {
public:
  explicit SplitMix64(uint64_t seed) : state(seed) {}

  uint64_t next() {
    uint64_t z = (state += kGamma);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  /// Uniform in [0, 1), a multiple of 2^-53.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  /// Moves past the next `n` outputs at once (the state only counts), so
  /// threads can each draw their part of one sequence.
  void skip(uint64_t n) { state += n * kGamma; }

private:
  static constexpr uint64_t kGamma = 0x9e3779b97f4a7c15ULL;
  uint64_t state;
};

/// Approximately standard normal values: the sum of 12 uniforms minus 6
/// (mean 0, variance 1, within [-6, 6]), which needs no transcendental
/// function. The sum is taken in a fixed order, so it rounds the same way
/// everywhere.
class PortableNormal {
public:
  explicit PortableNormal(uint64_t seed) : bits(seed) {}

  double next() {
    double sum = 0;
    for (int i = 0; i < 12; ++i)
      sum += bits.uniform();
    return sum - 6.0;
  }

  /// Moves past the next `n` values.
  void skip(uint64_t n) { bits.skip(12 * n); }

private:
  SplitMix64 bits;
};

} // namespace attnc

#endif // ATTNC_LIB_SUPPORT_RANDOM_H
