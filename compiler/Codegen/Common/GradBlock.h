//===- GradBlock.h - Blocks of attention's backward kernels -----*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The FlashAttention-2 backward with f32 working tiles in memory, for both
// mappings onto threads of BlockEmitter: a block is one host thread, or a
// GPU block whose threads own key rows (attention_grad_kv), query rows
// (attention_grad_q) or rows (attention_grad_delta). Nothing of size
// Nq x Nk is stored: each tile recomputes its scores and P = exp(s - lse)
// from the staged rows, with the forward's tile classification.
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
#include "compiler/Codegen/Common/OnlineSoftmax.h"
#include "dialects/attn/AttnOps.h"

namespace attnc {

/// The two halves of pairGradient, for kernels that compute P while dP
/// is still being computed: P = exp(s - lse) = 2^(score - lseLog2) in the
/// forward's log2 units (ScoreModel; `lseLog2` is lse times log2 e), then
/// dS from P.
mlir::Value pairProbability(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::attn::AttentionScoringOpInterface op,
                            mlir::Value raw, mlir::Value lseLog2,
                            mlir::ValueRange indices, mlir::Value allowed,
                            bool guarded, Exp2Fn exp2);
mlir::Value pairScoreGradient(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::attn::AttentionScoringOpInterface op,
                              mlir::Region &scoreGrad, mlir::Value raw,
                              mlir::Value p, mlir::Value dp, mlir::Value delta,
                              mlir::ValueRange indices, bool guarded);

/// The gradient of one (query row, key) pair: P = exp(s - lse) and dS with
/// respect to the raw dot product q·k (the score region's derivative and
/// the scale applied). Both are 0 where the pair is not allowed (`allowed`
/// false; null means allowed) or the row has no key (lse = -inf), so a
/// masked pair never turns 0 x inf into NaN.
struct PairGradient {
  mlir::Value p, dsRaw;
};
/// `raw` is q·k, `dp` dout·v, `indices` (b, h, q_idx, k_idx); every target
/// computes a pair with this one function. Unguarded, for pairs of a tile
/// that is in bounds and wholly allowed (so every row has a key and a
/// finite lse), the checks of `allowed` and of lse are left out.
PairGradient pairGradient(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::attn::AttentionScoringOpInterface op,
                          mlir::Region &scoreGrad, mlir::Value raw,
                          mlir::Value dp, mlir::Value lse, mlir::Value delta,
                          mlir::ValueRange indices, mlir::Value allowed,
                          bool guarded = true);

/// The grid of each kernel: x, y and z extents.
llvm::SmallVector<mlir::Value, 3>
gradDeltaGrid(mlir::OpBuilder &b, mlir::Location loc,
              mlir::attn::AttentionGradDeltaOp op,
              const KernelBuffers &buffers);
llvm::SmallVector<mlir::Value, 3>
gradKernelGrid(mlir::OpBuilder &b, mlir::Location loc,
               mlir::attn::AttentionScoringOpInterface op,
               const KernelBuffers &buffers);

/// The f32 working tiles of a gradient kernel block, in this order: staged
/// query-side rows q [block_m, D], dout [block_m, Dv], lse and delta
/// [block_m]; staged key-side rows k [block_n, D], v [block_n, Dv]; the
/// sums dq [block_m, D], dk [block_n, D], dv [block_n, Dv]; a tile's P and
/// dS [block_m, block_n]. Rows may be longer than needed (GPU padding).
struct GradTiles {
  mlir::Value q, dout, lse, delta, k, v, dq, dk, dv, p, ds;
};

/// The shapes of those tiles, rows of 2-d tiles padded by `pad` elements
/// (a GPU's threads walk rows, so padding spreads them over banks).
llvm::SmallVector<llvm::SmallVector<int64_t, 2>, 11>
gradTileShapes(mlir::attn::AttentionScoringOpInterface op, int64_t pad);
/// The tiles from `make(shape)`, one call per shape in order.
GradTiles
makeGradTiles(mlir::attn::AttentionScoringOpInterface op, int64_t pad,
              llvm::function_ref<mlir::Value(llvm::ArrayRef<int64_t>)> make);

/// Threads per GPU block of each kernel: one per key row or query row; the
/// delta kernel's four warps, one per row at a time.
int64_t gradKernelThreads(mlir::Operation *op);

/// Emits block `ids` (x, y, z of the grid) of each kernel at the builder's
/// insertion point. `threadId` is null on the host, else the thread's index
/// in a GPU block of gradKernelThreads(op) threads.
void emitGradDeltaBlock(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::attn::AttentionGradDeltaOp op,
                        const KernelBuffers &buffers, mlir::ValueRange ids,
                        mlir::Value threadId);
void emitGradKVBlock(mlir::OpBuilder &b, mlir::Location loc,
                     mlir::attn::AttentionGradKVOp op,
                     const KernelBuffers &buffers, const GradTiles &tiles,
                     mlir::ValueRange ids, mlir::Value threadId);
void emitGradQBlock(mlir::OpBuilder &b, mlir::Location loc,
                    mlir::attn::AttentionGradQOp op,
                    const KernelBuffers &buffers, const GradTiles &tiles,
                    mlir::ValueRange ids, mlir::Value threadId);

} // namespace attnc

#endif // ATTNC_COMPILER_CODEGEN_COMMON_GRADBLOCK_H
