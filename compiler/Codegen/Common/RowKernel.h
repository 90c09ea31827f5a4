//===- RowKernel.h - Kernels over rows: norms, sums, losses ----*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// attn.rms_norm, attn.layer_norm, attn.cross_entropy and their gradients
// work on whole rows (LayerNorm's centred by the row's mean first): a warp
// per row on a GPU (its lanes on consecutive columns, the row's sums and
// maxima by shuffles), a thread looping over a block's rows on the host.
// attn.sum_rows works per column: on a GPU a block's warps sum interleaved
// rows of 32 columns and add their sums in warp order; on the host a thread
// walks a column. attn.token_mean and its gradient reduce over all tokens
// in one block each (the threads' sums added in thread order), and
// attn.token_order sorts all tokens by id in one block; attn.embedding_grad
// gives a warp a 64-column slice of a table row and walks the row's tokens
// in that order. Each
// kernel's grid is along x; what a block does is written once, here, for
// both mappings (`threadId` null on the host).
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_CODEGEN_COMMON_ROWKERNEL_H
#define ATTNC_COMPILER_CODEGEN_COMMON_ROWKERNEL_H

#include "compiler/Codegen/Common/KernelBuffers.h"
#include "dialects/attn/AttnOps.h"

namespace attnc {

/// Threads of a GPU block of a row kernel: a warp per row, partial row or
/// table slice of its block; 32 warps for a row sum or a token order, 8
/// for a token mean.
int64_t rowKernelThreads(mlir::Operation *op);
/// The f32 shared memory of a GPU block, if it has any: a word per thread,
/// [warps, 32], for a row sum's or a token mean's sums and a token order's
/// range sums and ids (as f32 bit patterns); a norm gradient's partial weight
/// sums, [warps, width], where they fit 64 KiB (a warp's partial row is
/// then read and written in shared memory for each of its rows, and in
/// global memory once).
llvm::SmallVector<int64_t> rowKernelScratchShape(mlir::Operation *op);

/// The number of blocks: ceil(rows / block_size) for a norm or a
/// cross-entropy and its gradient, ceil(P / block_size) for a norm's
/// gradient (a block per partial row on the host), ceil(D / block_size) for
/// sum_rows, 1 for token_mean and token_order, ceil(tokens / block_size)
/// for token_mean's gradient, ceil(V * slices / block_size) for
/// embedding_grad.
mlir::Value rowKernelGrid(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Operation *op, const KernelBuffers &buffers);

/// Block `blockId` of the kernel of `op`; `scratch` is the f32 view of
/// rowKernelScratchShape in shared memory on a GPU, null otherwise.
void emitRowKernelBlock(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Operation *op, const KernelBuffers &buffers,
                        mlir::Value blockId, mlir::Value threadId,
                        mlir::Value scratch);

} // namespace attnc

#endif // ATTNC_COMPILER_CODEGEN_COMMON_ROWKERNEL_H
