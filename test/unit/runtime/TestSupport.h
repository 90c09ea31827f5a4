//===- TestSupport.h - Data and packages for runtime tests ------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_TEST_UNIT_RUNTIME_TESTSUPPORT_H
#define ATTNC_TEST_UNIT_RUNTIME_TESTSUPPORT_H

#include "attnc/package/Package.h"

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

/// q [B,4,N,16], k [B,2,M,16], v [B,2,M,16] -> out [B,4,N,16], lse [B,4,N],
/// all f32, computing attention with scale 1/4 in one step, kernel
/// "attention" of target "host" with entry `entry` (grid (N, 4, B), one
/// block per query row).
pkg::Function attentionFunction(std::string name, std::string entry);

/// The signature of attentionFunction as a four-step program through four
/// f32 buffers [B,4,N,16] (t0 and t2 share slot 0; lse0 [B,4,N] is slot 1,
/// t1 slot 2):
///   attention(q, k, v) -> t0, lse0;  scale(t0) -> t1;
///   attention(t1, k, v) -> t2, lse;  scale(t2) -> out
/// where scale is the cast x * 2 (kernel "scale", entry test_scale, the
/// same grid as "attention"). The ops leave lse0 unkept.
pkg::Function chainFunction();

/// The signature of attentionFunction as two attentions of q, k, v side by
/// side (the second concurrent: both read only the inputs) and a scale:
///   attention(q, k, v) -> t0, lse0;  attention(q, k, v) -> t1, lse;
///   scale(t0) -> out
/// through f32 buffers t0 (slot 0), lse0 (slot 1) and t1 (slot 2).
pkg::Function pairFunction();

/// y = 2 * x, f32 [B, kHeadsQ, N, kHeadDim], in one step of the scale kernel
/// (a cast op); y updates x in place (pkg::Function::updates).
pkg::Function scaleInPlaceFunction();

/// A package whose blob "host" (kind host-so) is `kernelLibrary`, the built
/// TestKernels.c, with the functions
///   attention          attentionFunction, entry test_attention
///   attention_noscale  the same signature and ops, but a kernel that
///                      ignores the scale
///   blocks             x i64 [N] -> blocks i64 [G], calls i64 [1]; one step
///                      of grid (ceildiv(N, 4), 2); no ops
///   chain              chainFunction
pkg::Package makeTestPackage(std::vector<uint8_t> kernelLibrary);

/// Contiguous f32 data for the attention test functions, random normal
/// inputs and NaN-poisoned outputs.
struct AttentionData {
  AttentionData(int64_t batch, int64_t seqQ, int64_t seqK, uint64_t seed);

  std::vector<int64_t> qShape, kvShape, oShape, lseShape;
  std::vector<float> q, k, v, o, lse;

  /// ||actual - ref|| / ||ref|| of (o, lse) against the fp64 reference of
  /// `function`'s ops on these inputs (a function with the signature of
  /// attentionFunction), over the finite reference entries; infinity where
  /// an infinite entry is not matched exactly or an output holds a NaN.
  StatusOr<std::pair<double, double>>
  referenceErrors(const pkg::Function &function) const;
};

} // namespace attnc::test

#endif // ATTNC_TEST_UNIT_RUNTIME_TESTSUPPORT_H
