//===- MmaKernel.h - Tensor-core attention kernel (mma.sync) ----*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_CONVERSION_ATTNTOGPU_MMAKERNEL_H
#define ATTNC_COMPILER_CONVERSION_ATTNTOGPU_MMAKERNEL_H

#include "compiler/Conversion/AttnToTiled/BlockBuilder.h"
#include "dialects/attn/AttnOps.h"
#include "mlir/IR/Builders.h"

namespace attnc {

/// Keys per tile of the tensor-core kernel.
inline constexpr int64_t kMmaBlockN = 64;

/// Query rows per block of the tensor-core kernel, 16 per warp: 128 for head
/// dims up to 64, 64 above (wider heads need more registers per thread, and
/// 128-row blocks then leave one block per SM). Measured on an H200:
/// docs/design.md.
inline int64_t mmaBlockM(int64_t headDimV) { return headDimV <= 64 ? 128 : 64; }

/// Threads per block: a warp per 16 rows.
inline int64_t mmaThreads(int64_t blockM) { return blockM / 16 * 32; }

/// Whether `op` can run on the tensor-core kernel: f16 or bf16 inputs and
/// head dims that are multiples of 16 (and, unless `ignoreTiles`, tiles of
/// mmaBlockM x kMmaBlockN). f32 inputs stay on the scalar kernel: tf32 would
/// lose precision.
inline bool canUseMmaKernel(mlir::attn::AttentionOp op,
                            bool ignoreTiles = false) {
  mlir::Type element = op.getQ().getType().getElementType();
  int64_t headDim = op.getQ().getType().getDimSize(3);
  int64_t headDimV = op.getV().getType().getDimSize(3);
  bool tilesFit =
      ignoreTiles ||
      (op.getTiles() && op.getTiles()->getBlockM() == mmaBlockM(headDimV) &&
       op.getTiles()->getBlockN() == kMmaBlockN);
  return (element.isF16() || element.isBF16()) && headDim % 16 == 0 &&
         headDimV % 16 == 0 && tilesFit;
}

/// Shared memory of the tensor-core kernel: a q tile and two stages of k
/// and v tiles (the next key tile is copied while the current one is used),
/// in the input element type, rows padded by 8 elements (16 bytes) so that
/// ldmatrix reads hit every bank once.
struct MmaSharedLayout {
  int64_t qRow, kRow, vRow;
  int64_t qOffset, kOffset, vOffset; // stage 0; stage 1 follows at +stageBytes
  int64_t stageBytes, bytes;
};
MmaSharedLayout getMmaSharedLayout(mlir::attn::AttentionOp op);

/// Emits the kernel body of block (qBlock, head, batch) for thread
/// `threadId` of mmaThreads; `shared` is the dynamic shared memory (i8).
void emitMmaKernel(mlir::OpBuilder &b, mlir::Location loc,
                   mlir::attn::AttentionOp op, const KernelOperands &operands,
                   mlir::Value shared, mlir::Value threadId, mlir::Value qBlock,
                   mlir::Value head, mlir::Value batch);

} // namespace attnc

#endif // ATTNC_COMPILER_CONVERSION_ATTNTOGPU_MMAKERNEL_H
