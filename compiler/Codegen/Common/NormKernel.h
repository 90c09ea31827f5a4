//===- NormKernel.h - Row kernels of norms and row sums ---------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// attn.rms_norm, attn.layer_norm and their gradients work on whole rows
// (LayerNorm's centred by the row's mean first): a warp per row
// on a GPU (its lanes on consecutive columns, the row's sums by shuffles),
// a thread looping over a block's rows on the host. attn.sum_rows works per
// column: on a GPU a block's warps sum interleaved rows of 32 columns and
// add their sums in warp order; on the host a thread walks a column. Each
// kernel's grid is along x; what a block does is written once, here, for
// both mappings (`threadId` null on the host).
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_CODEGEN_COMMON_NORMKERNEL_H
#define ATTNC_COMPILER_CODEGEN_COMMON_NORMKERNEL_H

#include "compiler/Codegen/Common/KernelBuffers.h"
#include "dialects/attn/AttnOps.h"

namespace attnc {

/// Threads of a GPU block of a norm or row-sum kernel: a warp per row or
/// partial row of its block; 8 warps over the rows of a row sum.
int64_t normKernelThreads(mlir::Operation *op);
/// Shared memory of a GPU block: a row sum's warps' sums, [8, 32] f32.
int64_t normKernelSharedBytes(mlir::Operation *op);

/// The number of blocks: ceil(rows / block_size) for a norm,
/// ceil(P / block_size) for its gradient (a block per partial row on the
/// host), ceil(D / block_size) for sum_rows.
mlir::Value normKernelGrid(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Operation *op, const KernelBuffers &buffers);

/// Block `blockId` of the kernel of `op` (one of the three); `scratch` is
/// a row sum's [8, 32] f32 in shared memory on a GPU, null otherwise.
void emitNormKernelBlock(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Operation *op, const KernelBuffers &buffers,
                         mlir::Value blockId, mlir::Value threadId,
                         mlir::Value scratch);

} // namespace attnc

#endif // ATTNC_COMPILER_CODEGEN_COMMON_NORMKERNEL_H
