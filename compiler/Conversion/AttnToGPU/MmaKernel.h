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

/// Rows and keys per block of the tensor-core kernel: four warps of 16 rows.
inline constexpr int64_t kMmaBlockM = 64, kMmaBlockN = 64, kMmaThreads = 128;

/// Whether `op` can run on the tensor-core kernel: f16 or bf16 inputs and
/// head dims that are multiples of 16 (and, unless `ignoreTiles`, 64 x 64
/// tiles). f32 inputs stay on the scalar kernel: tf32 would lose precision.
inline bool canUseMmaKernel(mlir::attn::AttentionOp op, bool ignoreTiles = false) {
  mlir::Type element = op.getQ().getType().getElementType();
  int64_t headDim = op.getQ().getType().getDimSize(3);
  int64_t headDimV = op.getV().getType().getDimSize(3);
  bool tilesFit = ignoreTiles || (op.getTiles() &&
                                  op.getTiles()->getBlockM() == kMmaBlockM &&
                                  op.getTiles()->getBlockN() == kMmaBlockN);
  return (element.isF16() || element.isBF16()) && headDim % 16 == 0 &&
         headDimV % 16 == 0 && tilesFit;
}

/// Shared memory of the tensor-core kernel: q, k and v tiles in the input
/// element type, rows padded by 8 elements (16 bytes) so that ldmatrix reads
/// hit every bank once.
struct MmaSharedLayout {
  int64_t qRow, kRow, vRow;
  int64_t qOffset, kOffset, vOffset, bytes;
};
MmaSharedLayout getMmaSharedLayout(mlir::attn::AttentionOp op);

/// Emits the kernel body of block (qBlock, head, batch) for thread
/// `threadId` of kMmaThreads; `shared` is the dynamic shared memory (i8).
void emitMmaKernel(mlir::OpBuilder &b, mlir::Location loc,
                   mlir::attn::AttentionOp op, const KernelOperands &operands,
                   mlir::Value shared, mlir::Value threadId, mlir::Value qBlock,
                   mlir::Value head, mlir::Value batch);

} // namespace attnc

#endif // ATTNC_COMPILER_CONVERSION_ATTNTOGPU_MMAKERNEL_H
