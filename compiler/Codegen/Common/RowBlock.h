//===- RowBlock.h - One block of attention, a thread per row ----*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The flash-attention recurrence for one block of query rows with the
// working tiles in f32 memory, shared by the host kernel and the scalar GPU
// kernel. Only the mapping onto threads differs: on the host a block is one
// thread that loops over its rows; on a GPU each of the block's block_m
// threads owns one row, copies into shared tiles are spread over all
// threads, and barriers separate a tile's copy from its use.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_CODEGEN_COMMON_ROWBLOCK_H
#define ATTNC_COMPILER_CODEGEN_COMMON_ROWBLOCK_H

#include "compiler/Codegen/Common/KernelBuffers.h"
#include "dialects/attn/AttnOps.h"
#include "mlir/IR/Builders.h"

namespace attnc {

/// The f32 working tiles of one block: q [block_m, >= D], k [block_n, D],
/// v [block_n, Dv], s [block_m, >= block_n], acc [block_m, >= Dv], rowMax and
/// rowSum [block_m]. Wider rows than needed are allowed (GPU padding).
struct BlockTiles {
  mlir::Value q, k, v, s, acc, rowMax, rowSum;
};

/// The buffers of an attention kernel: q, k, v and the outputs it writes
/// (out or lse may be null when nothing keeps them).
struct AttentionBuffers {
  mlir::Value q, k, v, out, lse;

  explicit AttentionBuffers(const KernelBuffers &buffers)
      : q(buffers.operands[0]), k(buffers.operands[1]),
        v(buffers.operands[2]), out(buffers.results[0]),
        lse(buffers.results[1]) {}
};

/// The block of the grid (ceil(Nq / block_m), Hq, B) being computed.
struct BlockIds {
  mlir::Value qBlock, head, batch;
};

/// That grid, for both targets: its x, y and z extents.
llvm::SmallVector<mlir::Value, 3> attentionGrid(mlir::OpBuilder &b,
                                                mlir::Location loc,
                                                mlir::attn::AttentionOp op,
                                                const AttentionBuffers &buffers);

/// Where block `ids` sits: its query rows [q0, q0 + rows) (fewer than
/// block_m in the last block) and the last of them, the number of keys and
/// the key/value head its query head reads, and the mask's diagonalOffset.
struct BlockGeometry {
  mlir::Value seqK, headKV, q0, rows, qLast, diagonal;
};
BlockGeometry blockGeometry(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::attn::AttentionOp op,
                            const AttentionBuffers &buffers,
                            const BlockIds &ids);

/// Emits the work of block `ids` at the builder's insertion point.
/// `threadId` is null for the host mapping, or the index of the thread in a
/// GPU block of block_m threads.
void emitRowBlock(mlir::OpBuilder &b, mlir::Location loc,
                  mlir::attn::AttentionOp op, const AttentionBuffers &buffers,
                  const BlockTiles &tiles, const BlockIds &ids,
                  mlir::Value threadId);

} // namespace attnc

#endif // ATTNC_COMPILER_CODEGEN_COMMON_ROWBLOCK_H
