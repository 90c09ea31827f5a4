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
#include "compiler/Codegen/Common/TileClassifier.h"
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
/// (out or lse may be null when nothing keeps them). For
/// attn.attention_split, out and lse hold every key range until
/// blockBuffers selects the block's.
struct AttentionBuffers {
  mlir::Value q, k, v, out, lse;

  explicit AttentionBuffers(const KernelBuffers &buffers)
      : q(buffers.operands[0]), k(buffers.operands[1]),
        v(buffers.operands[2]), out(buffers.results[0]),
        lse(buffers.results[1]) {}
};

/// The block of the grid (ceil(Nq / block_m), H * S, B) being computed,
/// S the op's key ranges and H the query heads (the key/value heads when
/// the tiles pack a group's heads into a block's rows): query block, head
/// (that key/value head when packed), batch, and the key range (null when
/// the keys are not split).
struct BlockIds {
  mlir::Value qBlock, head, batch, keyRange;
};

/// The ids of the block at (qBlock, y, batch) of that grid: y is
/// keyRange * Hq + head, so the heads of a key/value group run side by side
/// and share its keys in cache.
BlockIds attentionBlockIds(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::attn::AttentionScoringOpInterface op,
                           mlir::Value qBlock, mlir::Value y,
                           mlir::Value batch);

/// That grid, for both targets: its x, y and z extents.
llvm::SmallVector<mlir::Value, 3>
attentionGrid(mlir::OpBuilder &b, mlir::Location loc,
              mlir::attn::AttentionScoringOpInterface op,
              const AttentionBuffers &buffers);

/// Where block `ids` sits: its tile rows [0, rows) (fewer than block_m in
/// the last block), the query rows [q0, qLast] and heads [headFirst,
/// headLast] they stand for, the number of keys, the key/value head read,
/// and the mask's diagonalOffset. Unpacked, tile row r is query row q0 + r
/// of head headFirst = headLast; packed (query length 1), it is head
/// headFirst + r at query row 0.
struct BlockGeometry {
  mlir::Value seqK, headKV, q0, rows, qLast, diagonal;
  mlir::Value headFirst, headLast;
  bool packed = false;
};

/// The (head, query row) tile row `row` of `block` stands for.
std::pair<mlir::Value, mlir::Value> rowPosition(mlir::OpBuilder &b,
                                                mlir::Location loc,
                                                const BlockGeometry &block,
                                                mlir::Value row);

/// Whether `op`'s tiles pack the query heads of a key/value group into a
/// block's rows.
bool packsGroup(mlir::attn::AttentionScoringOpInterface op);
BlockGeometry blockGeometry(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::attn::AttentionScoringOpInterface op,
                            const AttentionBuffers &buffers,
                            const BlockIds &ids);

/// The buffers block `ids` works on: the slices of its key range when the
/// keys are split; with packed rows, q, out and lse viewed as [B, Hkv, G,
/// ...] so that a key/value head's G query heads are G rows.
AttentionBuffers blockBuffers(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::attn::AttentionScoringOpInterface op,
                              const AttentionBuffers &buffers,
                              const BlockIds &ids);

/// The keys block `block` walks: those the shorthands leave its rows
/// (keyLoopBounds), within its key range when the keys are split. A range
/// holds ceil(Nk / S) keys rounded up to whole key tiles.
KeyRange blockKeys(mlir::OpBuilder &b, mlir::Location loc,
                   mlir::attn::AttentionScoringOpInterface op,
                   const BlockGeometry &block, const BlockIds &ids);

/// Emits the work of block `ids` at the builder's insertion point.
/// `threadId` is null for the host mapping, or the index of the thread in a
/// GPU block of block_m threads.
void emitRowBlock(mlir::OpBuilder &b, mlir::Location loc,
                  mlir::attn::AttentionScoringOpInterface op,
                  const AttentionBuffers &buffers, const BlockTiles &tiles,
                  const BlockIds &ids, mlir::Value threadId);

} // namespace attnc

#endif // ATTNC_COMPILER_CODEGEN_COMMON_ROWBLOCK_H
