//===- RowBlock.cpp - One block of attention, a thread per row ------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Per block (rows [q0, q0 + rows) of one batch and head):
//
//   stage Q rows in f32; m = -inf, l = 0, acc = 0
//   for each key tile [k0, k0 + cols) inside the bounds the shorthands allow:
//     classify the tile; skip it if empty
//     stage K and V rows in f32
//     S = score(Q Kᵀ)                      (ScoreModel)
//     if the tile is partial: S = mask ? S : -inf
//     online softmax of each row (updateRow); acc = alpha acc + P V
//   out = acc / l; lse                      (finishRow)
//
// Loops over rows and keys stop at the valid extent of the tile, so nothing
// out of bounds is read or kept.
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/Common/RowBlock.h"

#include "compiler/Codegen/Common/KernelEmitter.h"
#include "compiler/Codegen/Common/OnlineSoftmax.h"
#include "compiler/Codegen/Common/TileClassifier.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>
#include <tuple>

using namespace mlir;

namespace {

class RowBlockBuilder : attnc::BlockEmitter {
public:
  RowBlockBuilder(OpBuilder &b, Location loc,
                  attn::AttentionScoringOpInterface op,
                  const attnc::AttentionBuffers &x, const attnc::BlockTiles &t,
                  Value threadId)
      : BlockEmitter(b, loc, threadId, op.getTiles()->getBlockM()), op(op),
        x(x), t(t), model(op) {
    attn::TilesAttr tiles = *op.getTiles();
    blockM = tiles.getBlockM();
    blockN = tiles.getBlockN();
    headDim = op.getQ().getType().getDimSize(3);
    headDimV = op.getV().getType().getDimSize(3);
    // The dot products may be reassociated and fused so they vectorize.
    dotFlags = arith::FastMathFlagsAttr::get(
        b.getContext(),
        arith::FastMathFlags::reassoc | arith::FastMathFlags::contract);
  }

  void emit(const attnc::BlockIds &ids);

  //===--------------------------------------------------------------------===//
  // Memory and arithmetic, shared with the score layout
  //===--------------------------------------------------------------------===//

  using BlockEmitter::load;
  using BlockEmitter::store;
  using KernelEmitter::reduce;
  /// A float sum that may be reassociated (dot products, row sums).
  Value sum(Value x, Value y) {
    return arith::AddFOp::create(b, loc, x, y, dotFlags).getResult();
  }

  OpBuilder &builder() { return b; }
  Location location() { return loc; }
  Value scores() { return t.s; }

private:
  void keyTile(const attnc::BlockIds &ids, Value k0);
  void rowScores(const attnc::BlockIds &ids, Value i, Value k0, Value cols,
                 Value mayBlock);
  void updateAndAccumulate(Value i, Value cols);
  void epilogue(const attnc::BlockIds &ids);

  attn::AttentionScoringOpInterface op;
  attnc::AttentionBuffers x;
  attnc::BlockTiles t;
  attnc::ScoreModel model;
  int64_t blockM, blockN, headDim, headDimV;
  arith::FastMathFlagsAttr dotFlags;
  // Set by emit().
  Value seqK, headKV, q0, rows, qLast, diagonal;
};

/// The scores of one row held in the block's f32 score tile.
class MemRefScoreRows : public attnc::ScoreRows {
public:
  MemRefScoreRows(RowBlockBuilder &block, Value row, Value cols)
      : block(block), row(row), cols(cols) {}

  Value rowMax(int64_t) override {
    OpBuilder &b = block.builder();
    Location loc = block.location();
    Value negInf = arith::ConstantOp::create(
        b, loc, b.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
    return block.reduce(
        cols, negInf, [&](Value j) { return block.load(block.scores(), {row, j}); },
        [&](Value p, Value q) {
          return arith::MaximumFOp::create(b, loc, p, q).getResult();
        });
  }

  Value exponentiate(int64_t, Value factor, Value negPivot) override {
    OpBuilder &b = block.builder();
    Location loc = block.location();
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
    return block.reduce(
        cols, zero,
        [&](Value j) {
          Value s = block.load(block.scores(), {row, j});
          Value p = math::Exp2Op::create(
              b, loc, math::FmaOp::create(b, loc, s, factor, negPivot));
          block.store(p, block.scores(), {row, j});
          return p;
        },
        [&](Value p, Value q) { return block.sum(p, q); });
  }

private:
  RowBlockBuilder &block;
  Value row, cols;
};

void RowBlockBuilder::emit(const attnc::BlockIds &ids) {
  attnc::BlockGeometry block = attnc::blockGeometry(b, loc, op, x, ids);
  std::tie(seqK, headKV, q0, rows, qLast, diagonal) =
      std::tie(block.seqK, block.headKV, block.q0, block.rows, block.qLast,
               block.diagonal);

  stageRows(x.q, t.q, ids.batch, ids.head, q0, rows, headDim);
  barrier();
  Value zero = f32Const(0.0);
  forEachRow(rows, [&](Value i) {
    store(f32Const(-std::numeric_limits<double>::infinity()), t.rowMax, {i});
    store(zero, t.rowSum, {i});
    loopTo(index(headDimV), [&](Value d) { store(zero, t.acc, {i, d}); });
  });

  attnc::KeyRange keys = attnc::blockKeys(b, loc, op, block, ids);
  loop(keys.begin, keys.end, index(blockN),
       [&](Value k0) { keyTile(ids, k0); });
  epilogue(ids);
}

void RowBlockBuilder::keyTile(const attnc::BlockIds &ids, Value k0) {
  Value cols = arith::MinUIOp::create(b, loc, index(blockN),
                                      arith::SubIOp::create(b, loc, seqK, k0));
  Value kLast = arith::SubIOp::create(b, loc, add(k0, cols), index(1));
  attnc::TileClass tileClass = attnc::classifyTile(
      b, loc, op, {ids.batch, ids.head, q0, qLast, k0, kLast, diagonal});
  // The classification is uniform over the block, so GPU barriers inside
  // this branch are reached by every thread or none.
  ifThen(tileClass.mayAllow, [&] {
    barrier(); // the previous tile's K and V are no longer read
    stageRows(x.k, t.k, ids.batch, headKV, k0, cols, headDim);
    stageRows(x.v, t.v, ids.batch, headKV, k0, cols, headDimV);
    barrier();
    forEachRow(rows, [&](Value i) {
      rowScores(ids, i, k0, cols, tileClass.mayBlock);
      updateAndAccumulate(i, cols);
    });
  });
}

/// S[i, j] for the tile's keys; masked only on partial tiles, so full tiles
/// pay no mask math.
void RowBlockBuilder::rowScores(const attnc::BlockIds &ids, Value i, Value k0,
                                Value cols, Value mayBlock) {
  Value qIdx = add(q0, i);
  loopTo(cols, [&](Value j) {
    Value dot = reduce(
        index(headDim), f32Const(0.0),
        [&](Value d) {
          return arith::MulFOp::create(b, loc, load(t.q, {i, d}),
                                       load(t.k, {j, d}), dotFlags)
              .getResult();
        },
        [&](Value total, Value term) { return sum(total, term); });
    store(model.score(b, loc, dot, {ids.batch, ids.head, qIdx, add(k0, j)}),
          t.s, {i, j});
  });
  if (!attnc::hasMask(op))
    return;
  ifThen(mayBlock, [&] {
    loopTo(cols, [&](Value j) {
      Value masked =
          attnc::maskScore(b, loc, op, diagonal, load(t.s, {i, j}),
                           {ids.batch, ids.head, qIdx, add(k0, j)}, Value());
      store(masked, t.s, {i, j});
    });
  });
}

/// The online softmax of row i, then acc = alpha acc + P V.
void RowBlockBuilder::updateAndAccumulate(Value i, Value cols) {
  MemRefScoreRows scores(*this, i, cols);
  attnc::SoftmaxUpdate update = attnc::updateRow(
      b, loc, scores, /*row=*/0,
      {load(t.rowMax, {i}), load(t.rowSum, {i})}, model.factor(b, loc),
      [&](Value v) { return math::Exp2Op::create(b, loc, v).getResult(); });
  store(update.next.sum, t.rowSum, {i});
  store(update.next.max, t.rowMax, {i});
  loopTo(index(headDimV), [&](Value d) {
    store(arith::MulFOp::create(b, loc, load(t.acc, {i, d}), update.alpha),
          t.acc, {i, d});
  });
  loopTo(cols, [&](Value j) {
    Value p = load(t.s, {i, j});
    loopTo(index(headDimV), [&](Value d) {
      Value product =
          arith::MulFOp::create(b, loc, p, load(t.v, {j, d}), dotFlags);
      store(sum(load(t.acc, {i, d}), product), t.acc, {i, d});
    });
  });
}

/// Normalizes and writes the block's rows.
void RowBlockBuilder::epilogue(const attnc::BlockIds &ids) {
  forEachRow(rows, [&](Value i) {
    Value qIdx = add(q0, i);
    attnc::RowResult result = attnc::finishRow(
        b, loc, {load(t.rowMax, {i}), load(t.rowSum, {i})});
    if (x.out) {
      loopTo(index(headDimV), [&](Value d) {
        Value value =
            arith::MulFOp::create(b, loc, load(t.acc, {i, d}), result.inverseSum);
        store(fromF32(value, x.out), x.out, {ids.batch, ids.head, qIdx, d});
      });
    }
    if (x.lse)
      store(result.lse, x.lse, {ids.batch, ids.head, qIdx});
  });
}

} // namespace

bool attnc::packsGroup(attn::AttentionScoringOpInterface op) {
  std::optional<attn::TilesAttr> tiles = op.getTiles();
  return tiles && tiles->getPackGroup().value_or(false);
}

/// The heads of the grid's y dim (per key range): query heads, or key/value
/// heads when a block's rows pack a group.
static int64_t blockHeads(attn::AttentionScoringOpInterface op) {
  return attnc::packsGroup(op) ? op.getK().getType().getDimSize(1)
                               : op.getQ().getType().getDimSize(1);
}

SmallVector<Value, 3> attnc::attentionGrid(OpBuilder &b, Location loc,
                                           attn::AttentionScoringOpInterface op,
                                           const AttentionBuffers &buffers) {
  Value queryBlocks = arith::CeilDivUIOp::create(
      b, loc, memref::DimOp::create(b, loc, buffers.q, 2),
      arith::ConstantIndexOp::create(b, loc, op.getTiles()->getBlockM()));
  Value heads = arith::ConstantIndexOp::create(
      b, loc, blockHeads(op) * op.getKeySplits());
  Value batch = memref::DimOp::create(b, loc, buffers.q, 0);
  return {queryBlocks, heads, batch};
}

attnc::BlockIds attnc::attentionBlockIds(OpBuilder &b, Location loc,
                                         attn::AttentionScoringOpInterface op,
                                         Value qBlock, Value y, Value batch) {
  if (op.getKeySplits() == 1)
    return {qBlock, y, batch, Value()};
  Value heads = arith::ConstantIndexOp::create(b, loc, blockHeads(op));
  return {qBlock, arith::RemUIOp::create(b, loc, y, heads), batch,
          arith::DivUIOp::create(b, loc, y, heads)};
}

/// Range `range` of per-range results `parts` ([S, ...]): a view without
/// the leading dim.
static Value rangeOf(OpBuilder &b, Location loc, Value parts, Value range) {
  auto type = cast<MemRefType>(parts.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = memref::getMixedSizes(b, loc, parts);
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  offsets[0] = range;
  sizes[0] = b.getIndexAttr(1);
  auto viewType = memref::SubViewOp::inferRankReducedResultType(
      type.getShape().drop_front(), type, offsets, sizes, strides);
  return memref::SubViewOp::create(b, loc, viewType, parts, offsets, sizes,
                                   strides);
}

/// `buffer` ([B, Hq, 1, ...]) viewed as [B, Hkv, group, ...]: the query
/// row dim dropped, the head dim split. Any strides allow it.
static Value groupRows(OpBuilder &b, Location loc, Value buffer,
                       int64_t group) {
  auto type = cast<MemRefType>(buffer.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = memref::getMixedSizes(b, loc, buffer);
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  SmallVector<int64_t> rowless(type.getShape());
  rowless.erase(rowless.begin() + 2);
  auto rowlessType = memref::SubViewOp::inferRankReducedResultType(
      rowless, type, offsets, sizes, strides);
  Value view = memref::SubViewOp::create(b, loc, rowlessType, buffer, offsets,
                                         sizes, strides);
  // [B, Hq, rest...] -> [B, Hq / group, group, rest...]
  SmallVector<int64_t> shape = {rowless[0], rowless[1] / group, group};
  shape.append(rowless.begin() + 2, rowless.end());
  SmallVector<ReassociationIndices> reassociation = {{0}, {1, 2}};
  for (int64_t d = 3; d < rank; ++d)
    reassociation.push_back({d});
  // Dims past the group are the buffer's own past its query row dim.
  SmallVector<OpFoldResult> outputShape = {sizes[0], b.getIndexAttr(shape[1]),
                                           b.getIndexAttr(group)};
  for (int64_t d = 3; d < rank; ++d)
    outputShape.push_back(sizes[d]);
  auto grouped = memref::ExpandShapeOp::computeExpandedType(
      cast<MemRefType>(rowlessType), shape, reassociation);
  return memref::ExpandShapeOp::create(b, loc, *grouped, view, reassociation,
                                       outputShape);
}

attnc::AttentionBuffers
attnc::blockBuffers(OpBuilder &b, Location loc,
                    attn::AttentionScoringOpInterface op,
                    const AttentionBuffers &buffers, const BlockIds &ids) {
  AttentionBuffers selected = buffers;
  auto select = [&](Value &buffer) {
    if (buffer && ids.keyRange)
      buffer = rangeOf(b, loc, buffer, ids.keyRange);
  };
  select(selected.out);
  select(selected.lse);
  if (packsGroup(op)) {
    int64_t group = op.getGroupSize();
    for (Value *buffer : {&selected.q, &selected.out, &selected.lse})
      if (*buffer)
        *buffer = groupRows(b, loc, *buffer, group);
  }
  return selected;
}

std::pair<Value, Value> attnc::rowPosition(OpBuilder &b, Location loc,
                                           const BlockGeometry &block,
                                           Value row) {
  if (block.packed)
    return {arith::AddIOp::create(b, loc, block.headFirst, row),
            arith::ConstantIndexOp::create(b, loc, 0)};
  return {block.headFirst, arith::AddIOp::create(b, loc, block.q0, row)};
}

attnc::KeyRange attnc::blockKeys(OpBuilder &b, Location loc,
                                 attn::AttentionScoringOpInterface op,
                                 const BlockGeometry &block,
                                 const BlockIds &ids) {
  int64_t blockN = op.getTiles()->getBlockN();
  KeyRange keys = keyLoopBounds(b, loc, op, block.q0, block.qLast, block.seqK,
                                block.diagonal, blockN);
  if (!ids.keyRange)
    return keys;
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  // Whole tiles per range, so every range starts on a tile boundary.
  Value tiles = arith::CeilDivUIOp::create(b, loc, block.seqK, index(blockN));
  Value tilesPerRange =
      arith::CeilDivUIOp::create(b, loc, tiles, index(op.getKeySplits()));
  Value span = arith::MulIOp::create(b, loc, tilesPerRange, index(blockN));
  Value first = arith::MulIOp::create(b, loc, ids.keyRange, span);
  keys.begin = arith::MaxSIOp::create(b, loc, keys.begin, first);
  keys.end = arith::MinSIOp::create(b, loc, keys.end,
                                    arith::AddIOp::create(b, loc, first, span));
  keys.end = arith::MaxSIOp::create(b, loc, keys.end, keys.begin);
  return keys;
}

attnc::BlockGeometry attnc::blockGeometry(OpBuilder &b, Location loc,
                                          attn::AttentionScoringOpInterface op,
                                          const AttentionBuffers &buffers,
                                          const BlockIds &ids) {
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value blockM = index(op.getTiles()->getBlockM());
  BlockGeometry g;
  g.seqK = memref::DimOp::create(b, loc, buffers.k, 2);
  if (packsGroup(op)) {
    // The rows are the group's heads at the one query row.
    int64_t group = op.getGroupSize();
    g.packed = true;
    g.headKV = ids.head;
    g.headFirst = arith::MulIOp::create(b, loc, ids.head, index(group));
    g.headLast = arith::AddIOp::create(b, loc, g.headFirst, index(group - 1));
    g.q0 = g.qLast = index(0);
    g.rows = index(group);
    g.diagonal = attnc::diagonalOffset(b, loc, op, index(1), g.seqK);
    return g;
  }
  Value seqQ = memref::DimOp::create(b, loc, buffers.q, 2);
  g.headFirst = g.headLast = ids.head;
  g.headKV = arith::DivUIOp::create(b, loc, ids.head, index(op.getGroupSize()));
  g.q0 = arith::MulIOp::create(b, loc, ids.qBlock, blockM);
  g.rows = arith::MinUIOp::create(b, loc, blockM,
                                  arith::SubIOp::create(b, loc, seqQ, g.q0));
  g.qLast = arith::SubIOp::create(
      b, loc, arith::AddIOp::create(b, loc, g.q0, g.rows), index(1));
  g.diagonal = attnc::diagonalOffset(b, loc, op, seqQ, g.seqK);
  return g;
}

void attnc::emitRowBlock(OpBuilder &b, Location loc,
                         attn::AttentionScoringOpInterface op,
                         const AttentionBuffers &buffers,
                         const BlockTiles &tiles, const BlockIds &ids,
                         Value threadId) {
  RowBlockBuilder(b, loc, op, blockBuffers(b, loc, op, buffers, ids), tiles,
                  threadId)
      .emit(ids);
}
