//===- MmaAttentionGrad.h - Tensor-core attention backward ------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The key/value and query gradient kernels on mma.sync (f16/bf16): warps of
// 16 rows, every product m16n8k16 with operands through ldmatrix from
// padded shared tiles, square tiles: block_m = block_n = 16 x warps. Both
// also on wgmma with swizzled shared tiles: the key/value kernel with a
// warpgroup per 64 keys and query tiles of 64, the query kernel with a
// warpgroup per 64 query rows.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_CODEGEN_NVGPU_MMAATTENTIONGRAD_H
#define ATTNC_COMPILER_CODEGEN_NVGPU_MMAATTENTIONGRAD_H

#include "compiler/Codegen/Common/KernelBuffers.h"
#include "compiler/Codegen/NVGPU/SharedTiles.h"

namespace attnc {

/// Shared memory of a gradient kernel: the query-side tiles q and dout
/// with the f32 lse and delta of their rows, the key-side tiles k and v,
/// and dSᵀ (keys x queries; the key/value kernel's dq). The side a kernel
/// walks (queries for attention_grad_kv, keys for attention_grad_q) has
/// `stages` stages, `stageBytes` apart: the next tiles are copied while
/// this one is used (two). The wgmma
/// key/value kernel with a dq accumulator also stages each query tile's f32 dq
/// rows at dqOffset (block_m x head dim, in the accumulator's row order) for
/// the bulk reduction that adds them.
struct MmaGradLayout {
  MmaTileLayout q, dout, k, v, dsT;
  int64_t qOffset, doutOffset, kOffset, vOffset, dsTOffset;
  int64_t dqOffset = 0;
  // With a producer (`producer` tiles): the walked stages' mbarriers, one
  // "full" (the copies landed) and one "free" (every consumer is done) per
  // stage.
  int64_t fullOffset = 0, freeOffset = 0;
  int64_t lseOffset, deltaOffset;
  int64_t stageBytes, stages;
  int64_t bytes;
};

MmaGradLayout getMmaGradLayout(mlir::attn::AttentionScoringOpInterface op);

/// Emits block `ids` (x, y, z of GradBlock's grid) of each kernel.
void emitMmaGradKV(mlir::OpBuilder &b, mlir::Location loc,
                   mlir::attn::AttentionGradKVOp op,
                   const KernelBuffers &buffers, const MmaGradLayout &layout,
                   mlir::Value shared, mlir::Value threadId,
                   mlir::ValueRange ids);
void emitMmaGradQ(mlir::OpBuilder &b, mlir::Location loc,
                  mlir::attn::AttentionGradQOp op, const KernelBuffers &buffers,
                  const MmaGradLayout &layout, mlir::Value shared,
                  mlir::Value threadId, mlir::ValueRange ids);

} // namespace attnc

#endif // ATTNC_COMPILER_CODEGEN_NVGPU_MMAATTENTIONGRAD_H
