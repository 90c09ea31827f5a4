//===- GradBlock.h - Blocks of attention's backward kernels -----*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The FlashAttention-2 backward with f32 working tiles in memory, as the
// host runs it (one thread per block): nothing of size Nq x Nk is stored;
// each (query row, key) pair recomputes its score and P = exp(s - lse) from
// the staged tiles, tile by tile, with the forward's tile classification.
//
//   attention_grad_delta  grid (ceil(Nq / rows), Hq, B): delta = rowsum(out
//                         * dout), and the dq accumulator zeroed
//   attention_grad_kv     grid (ceil(Nk / block_n), Hkv, B): a block of keys
//                         over the query tiles of every head of its group;
//                         dk and dv in the block, dq added atomically
//   attention_grad_q      grid (ceil(Nq / block_m), Hq, B): a block of query
//                         rows over the key tiles; dq in the block
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_CODEGEN_COMMON_GRADBLOCK_H
#define ATTNC_COMPILER_CODEGEN_COMMON_GRADBLOCK_H

#include "compiler/Codegen/Common/KernelBuffers.h"
#include "dialects/attn/AttnOps.h"

namespace attnc {

/// The grid of each kernel: x, y and z extents.
llvm::SmallVector<mlir::Value, 3> gradDeltaGrid(mlir::OpBuilder &b,
                                                mlir::Location loc,
                                                mlir::attn::AttentionGradDeltaOp op,
                                                const KernelBuffers &buffers);
llvm::SmallVector<mlir::Value, 3>
gradKernelGrid(mlir::OpBuilder &b, mlir::Location loc,
               mlir::attn::AttentionScoringOpInterface op,
               const KernelBuffers &buffers);

/// Emits block `ids` (x, y, z of the grid) of each kernel at the builder's
/// insertion point, allocating its f32 working tiles.
void emitGradDeltaBlock(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::attn::AttentionGradDeltaOp op,
                        const KernelBuffers &buffers, mlir::ValueRange ids);
void emitGradKVBlock(mlir::OpBuilder &b, mlir::Location loc,
                     mlir::attn::AttentionGradKVOp op,
                     const KernelBuffers &buffers, mlir::ValueRange ids);
void emitGradQBlock(mlir::OpBuilder &b, mlir::Location loc,
                    mlir::attn::AttentionGradQOp op,
                    const KernelBuffers &buffers, mlir::ValueRange ids);

} // namespace attnc

#endif // ATTNC_COMPILER_CODEGEN_COMMON_GRADBLOCK_H
