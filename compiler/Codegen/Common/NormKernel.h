//===- NormKernel.h - Row kernels of RMSNorm and row sums -------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// attn.rms_norm and attn.rms_norm_grad work on whole rows: a warp per row
// on a GPU (its lanes on consecutive columns, the row's sums by shuffles),
// a thread looping over a block's rows on the host. attn.sum_rows works per
// column: a thread per column on a GPU, walking the rows in order. Each
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
/// partial row of its block, a thread per column of a row sum.
int64_t normKernelThreads(mlir::Operation *op);

/// The number of blocks: ceil(rows / block_size) for rms_norm,
/// ceil(P / block_size) for rms_norm_grad (a block per partial row on the
/// host), ceil(D / block_size) for sum_rows.
mlir::Value normKernelGrid(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Operation *op, const KernelBuffers &buffers);

/// Block `blockId` of the kernel of `op` (one of the three).
void emitNormKernelBlock(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Operation *op, const KernelBuffers &buffers,
                         mlir::Value blockId, mlir::Value threadId);

} // namespace attnc

#endif // ATTNC_COMPILER_CODEGEN_COMMON_NORMKERNEL_H
