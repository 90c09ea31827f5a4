//===- BlockBuilder.h - One block of the tiled attention kernel -*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The flash-attention recurrence for one block of query rows, shared by the
// host and GPU kernels. Only the mapping onto threads differs: on the host a
// block is one thread that loops over its rows; on a GPU each of the block's
// block_m threads owns one row, copies into shared tiles are spread over all
// threads, and barriers separate a tile's copy from its use.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_CONVERSION_ATTNTOTILED_BLOCKBUILDER_H
#define ATTNC_COMPILER_CONVERSION_ATTNTOTILED_BLOCKBUILDER_H

#include "dialects/attn/AttnOps.h"
#include "mlir/IR/Builders.h"

namespace attnc {

/// The f32 working tiles of one block: q [block_m, >= D], k [block_n, D],
/// v [block_n, Dv], s [block_m, >= block_n], acc [block_m, >= Dv], rowMax and
/// rowSum [block_m]. Wider rows than needed are allowed (GPU padding).
struct BlockTiles {
  mlir::Value q, k, v, s, acc, rowMax, rowSum;
};

/// The kernel's operands: q, k, v and the outputs it writes (out or lse may
/// be null when the function does not return them).
struct KernelOperands {
  mlir::Value q, k, v, out, lse;
};

/// Emits the work of block (qBlock, head, batch) at the builder's insertion
/// point. `threadId` is null for the host mapping, or the index of the thread
/// in a GPU block of block_m threads.
void emitAttentionBlock(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::attn::AttentionOp op,
                        const KernelOperands &operands, const BlockTiles &tiles,
                        mlir::Value qBlock, mlir::Value head, mlir::Value batch,
                        mlir::Value threadId);

} // namespace attnc

#endif // ATTNC_COMPILER_CONVERSION_ATTNTOTILED_BLOCKBUILDER_H
