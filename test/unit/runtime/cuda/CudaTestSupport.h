//===- CudaTestSupport.h - CUDA kernels and packages for tests --*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_TEST_UNIT_RUNTIME_CUDA_CUDATESTSUPPORT_H
#define ATTNC_TEST_UNIT_RUNTIME_CUDA_CUDATESTSUPPORT_H

#include "attnc/package/Package.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnc::test {

/// TestKernels.cu compiled for sm_90a, built into the test binaries.
std::vector<uint8_t> testKernelsCubin();
std::vector<uint8_t> testKernelsPtx();

/// Dynamic shared memory of the function "reverse": more than the 48 KiB a
/// kernel gets without opting in.
inline constexpr int64_t kReverseSharedBytes = 160 * 1024;

/// A package whose blob "gpu" of kind `blobKind` ("cubin" or "ptx") holds
/// `code`, with these functions, their kernels for `target`:
///   attention  attentionFunction's signature and ops; kernel "attention",
///              entry test_attention, grid (ceildiv(N, 128), 4, B), block 128
///   reverse    x f32 [N] -> y f32 [N]; entry test_reverse, grid 1, block
///              1024, kReverseSharedBytes of dynamic shared memory
///   chain      chainFunction, its kernel "attention" as above and "scale"
///              (entry test_scale) with the same grid and block
///   pointers   n f32 [N] -> ptrs i64 [2]: the addresses of the buffers
///              a f32 [N] (slot 0) and b f32 [N] (slot 1); entry
///              test_pointers, one thread
///   tall       x f32 [N] -> y f32 [N], y = x; entry test_tall, grid
///              (1, N, 1), one thread
pkg::Package makeCudaTestPackage(const std::string &blobKind,
                                 std::vector<uint8_t> code,
                                 const std::string &target = "sm_90a");

} // namespace attnc::test

#endif // ATTNC_TEST_UNIT_RUNTIME_CUDA_CUDATESTSUPPORT_H
