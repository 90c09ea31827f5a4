//===- MmaAttention.h - Tensor-core attention kernels -----------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_CODEGEN_NVGPU_MMAATTENTION_H
#define ATTNC_COMPILER_CODEGEN_NVGPU_MMAATTENTION_H

#include "compiler/Codegen/Common/RowBlock.h"
#include "compiler/Codegen/NVGPU/SharedTiles.h"

namespace attnc {

/// Threads of the tensor-core kernel of `op` that compute: a warp per 16
/// rows of the block's own side (its query rows; its keys in
/// attention_grad_kv).
inline int64_t mmaConsumerThreads(mlir::attn::AttentionScoringOpInterface op) {
  mlir::attn::TilesAttr tiles = *op.getTiles();
  bool ownsKeys = mlir::isa<mlir::attn::AttentionGradKVOp>(op.getOperation());
  return (ownsKeys ? tiles.getBlockN() : tiles.getBlockM()) / 16 * 32;
}

/// The warpgroup that copies the tiles of a wgmma kernel whose tiles say
/// `producer` (none elsewhere: the computing threads copy their own). It
/// comes after the consumers.
inline int64_t mmaProducerThreads(mlir::attn::AttentionScoringOpInterface op) {
  return op.getTiles()->getProducer().value_or(false) ? 128 : 0;
}

/// Threads of the tensor-core kernel of `op`: its consumers, then its
/// producer.
inline int64_t mmaThreads(mlir::attn::AttentionScoringOpInterface op) {
  return mmaConsumerThreads(op) + mmaProducerThreads(op);
}

/// Emits the body of block `ids` of `op`'s tensor-core kernel (its tiles
/// say mma_sync or wgmma) for thread `threadId`; `shared` is the dynamic
/// shared memory, laid out as `layout` (1024-byte aligned for wgmma).
void emitMmaAttention(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::attn::AttentionScoringOpInterface op,
                      const AttentionBuffers &buffers,
                      const MmaSharedLayout &layout, mlir::Value shared,
                      mlir::Value threadId, const BlockIds &ids);

} // namespace attnc

#endif // ATTNC_COMPILER_CODEGEN_NVGPU_MMAATTENTION_H
