//===- TestSupport.h - Data and packages for runtime tests ------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_TEST_UNIT_RUNTIME_TESTSUPPORT_H
#define ATTNC_TEST_UNIT_RUNTIME_TESTSUPPORT_H

#include "lib/package/Package.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnc::test {

/// Static extents of the attention test functions (GQA with groups of 2).
inline constexpr int64_t kHeadsQ = 4;
inline constexpr int64_t kHeadsKV = 2;
inline constexpr int64_t kHeadDim = 16;
inline constexpr double kScale = 0.25; // 1 / sqrt(kHeadDim)

StatusOr<std::vector<uint8_t>> readBytes(const std::string &path);

/// A package whose blob "host" (kind host-so) is `kernelLibrary`, the built
/// TestKernels.c, with the functions
///   attention          q [B,4,N,16], k [B,2,M,16], v [B,2,M,16] (f32)
///                      -> o [B,4,N,16], lse [B,4,N]; scale 1/4
///   attention_noscale  the same signature and semantics, but a kernel that
///                      ignores the scale
///   blocks             x i64 [N] -> blocks i64 [G], calls i64 [1]; grid
///                      (ceildiv(N, 4), 2); no attention semantics
pkg::Package makeTestPackage(std::vector<uint8_t> kernelLibrary);

/// Contiguous f32 data for the attention test functions, random normal
/// inputs and NaN-poisoned outputs.
struct AttentionData {
  AttentionData(int64_t batch, int64_t seqQ, int64_t seqK, uint64_t seed);

  std::vector<int64_t> qShape, kvShape, oShape, lseShape;
  std::vector<float> q, k, v, o, lse;

  /// ||actual - ref|| / ||ref|| of (o, lse) against the fp64 reference of
  /// these inputs, over the finite reference entries; infinity where an
  /// infinite entry is not matched exactly or an output holds a NaN.
  StatusOr<std::pair<double, double>> referenceErrors() const;
};

} // namespace attnc::test

#endif // ATTNC_TEST_UNIT_RUNTIME_TESTSUPPORT_H
