//===- AttnToGPU.h - attn.attention to GPU kernels --------------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_CONVERSION_ATTNTOGPU_ATTNTOGPU_H
#define ATTNC_COMPILER_CONVERSION_ATTNTOGPU_ATTNTOGPU_H

#include "dialects/attn/AttnOps.h"

#include <cstdint>

namespace attnc {

/// Shared memory the sm_90a kernels may use per block (227 KiB).
inline constexpr int64_t kSm90SharedMemoryBytes = 232448;

/// How a GPU kernel lays out one block: threads, and the byte offsets of the
/// f32 working tiles in dynamic shared memory. Rows of the per-row tiles
/// (q, s, acc) are padded by one element so that the threads of a warp, one
/// per row, hit different banks. Shared by the lowering and the package
/// writer (launch metadata).
struct GpuBlockLayout {
  int64_t threads;
  int64_t qRow, sRow, accRow; // padded row lengths, in elements
  int64_t qOffset, kOffset, vOffset, sOffset, accOffset, rowMaxOffset,
      rowSumOffset;
  int64_t sharedBytes;
};

/// The layout of `op`'s scalar kernel; `op` must have tiles.
GpuBlockLayout getGpuBlockLayout(mlir::attn::AttentionOp op);

/// Threads per block and dynamic shared memory of `op`'s kernel, whichever
/// form (tensor-core or scalar) it gets.
struct GpuLaunch {
  int64_t threads, sharedBytes;
};
GpuLaunch getGpuLaunch(mlir::attn::AttentionOp op);

/// The name of the gpu.module holding every kernel of a module.
inline constexpr llvm::StringLiteral kGpuModuleName = "attnc_kernels";

} // namespace attnc

#endif // ATTNC_COMPILER_CONVERSION_ATTNTOGPU_ATTNTOGPU_H
