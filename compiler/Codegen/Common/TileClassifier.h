//===- TileClassifier.h - Classify attention tiles from the mask -*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A tile of the score matrix covers query rows [qFirst, qLast] and keys
// [kFirst, kLast] of one (batch, head). It is empty when the mask allows no
// element of it (the kernel skips it), full when the mask allows every
// element (no mask math), and partial otherwise.
//
// The classifier emits IR that decides this at run time, per tile, by
// interpreting the mask over intervals instead of points: every integer value
// of the mask becomes a [lo, hi] pair and every i1 a (mayBeTrue, mayBeFalse)
// pair. The shorthands (causal, windows) are comparisons of the indices;
// a mask region is interpreted op by op by the interval rule of its row in
// the region op table (lib/semantics/RegionOps.def); an op without a rule
// makes its result unknown, which only costs a partial classification,
// never a wrong one. Every kernel (host, scalar GPU, tensor-core) uses it.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_CODEGEN_COMMON_TILECLASSIFIER_H
#define ATTNC_COMPILER_CODEGEN_COMMON_TILECLASSIFIER_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "mlir/IR/ValueRange.h"

namespace mlir::attn {
class AttentionScoringOpInterface;
} // namespace mlir::attn

namespace attnc {

/// The shorthands' diagonal: key `i + offset` is the last key that causal
/// allows query row i. Null (offset 0) unless `op` is `bottom_right`, where it
/// is `seqK - seqQ`. Every function below takes it.
mlir::Value diagonalOffset(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::attn::AttentionScoringOpInterface op,
                           mlir::Value seqQ, mlir::Value seqK);

/// The index box of one tile; all values are `index`.
struct TileBox {
  mlir::Value batch, head;
  mlir::Value qFirst, qLast;
  mlir::Value kFirst, kLast;
  mlir::Value diagonal; // diagonalOffset
  mlir::Value headLast; // the last head when rows span heads, else null
  /// The thread's lane in its warp on a GPU whose warps classify together
  /// (every lane of a warp reaches the classification): the lanes then
  /// share the reads of a capture's range. Null: each thread reads alone.
  mlir::Value lane;
};

/// What the mask can do on a tile: i1 values.
struct TileClass {
  mlir::Value mayAllow; // false: the tile is empty
  mlir::Value mayBlock; // false: the tile is full
  /// False where the mask region allows every pair of the tile, so that
  /// only the shorthands and bounds may block (a causal diagonal tile of
  /// one document); null without a region.
  mlir::Value regionMayBlock = nullptr;
};

/// The key range [begin, end) that the shorthands (causal, windows) leave
/// for query rows [qFirst, qLast] among `seqK` keys, begin aligned down to
/// `blockN` so that key tiles stay aligned. The classifier handles the rest.
struct KeyRange {
  mlir::Value begin, end;
};
KeyRange keyLoopBounds(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::attn::AttentionScoringOpInterface op,
                       mlir::Value qFirst, mlir::Value qLast, mlir::Value seqK,
                       mlir::Value diagonal, int64_t blockN);

/// The query range [begin, end) that the shorthands leave for keys
/// [kFirst, kLast] among `seqQ` query rows, begin aligned down to `blockM`:
/// the transpose of keyLoopBounds, for kernels that walk a block of keys
/// over query tiles (the backward pass).
KeyRange queryLoopBounds(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::attn::AttentionScoringOpInterface op,
                         mlir::Value kFirst, mlir::Value kLast,
                         mlir::Value seqQ, mlir::Value diagonal,
                         int64_t blockM);

/// Whether `op` has any mask: a shorthand or a mask region.
bool hasMask(mlir::attn::AttentionScoringOpInterface op);

/// Emits, at the builder's insertion point, the classification of `box`
/// under the combined mask of `op` (shorthands and region).
TileClass classifyTile(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::attn::AttentionScoringOpInterface op,
                       const TileBox &box);

/// Emits the per-element mask of `op` for query row `qIdx` and key `kIdx`
/// (index values): the conjunction of the shorthands and, with
/// `withRegion`, the inlined mask region. Null when that leaves no term.
mlir::Value emitElementMask(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::attn::AttentionScoringOpInterface op,
                            mlir::Value diagonal, mlir::Value batch,
                            mlir::Value head, mlir::Value qIdx,
                            mlir::Value kIdx, bool withRegion = true);

/// Clones the single block of `region` at the builder's insertion point with
/// its arguments replaced by `args` and returns the value it yields. The
/// arguments after `args` are the op's captures: their tensor.extract ops
/// become loads from the buffers the kernel reads them from (the op is in
/// destination-passing form), 0 outside the buffer's shape.
mlir::Value inlineRegion(mlir::OpBuilder &b, mlir::Region &region,
                         mlir::ValueRange args);
/// The same for a region that yields several values (an elementwise body
/// with several results): the values it yields; `mapping` receives each
/// region value's clone.
llvm::SmallVector<mlir::Value> inlineRegionValues(mlir::OpBuilder &b,
                                                  mlir::Region &region,
                                                  mlir::ValueRange args,
                                                  mlir::IRMapping &mapping);
llvm::SmallVector<mlir::Value> inlineRegionValues(mlir::OpBuilder &b,
                                                  mlir::Region &region,
                                                  mlir::ValueRange args);

} // namespace attnc

#endif // ATTNC_COMPILER_CODEGEN_COMMON_TILECLASSIFIER_H
