//===- GradBlock.cpp - Blocks of attention's backward kernels -------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Per (query row i, key j) of a tile that the classifier did not skip:
//
//   raw = q_i · k_j;  x = scale raw;  s = score(x)      (or x)
//   allowed = mask(i, j) on partial tiles;  p = allowed ? exp(s - lse_i) : 0
//   dp = dout_i · v_j;  ds = p (dp - delta_i)
//   dsRaw = p == 0 ? 0 : ds · score'(x) · scale         (score' = score_grad)
//
// then dv_j += p dout_i, dk_j += dsRaw q_i, dq_i += dsRaw k_j. A row with
// lse = -inf has p = 0 everywhere, so its gradients are exactly 0.
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/Common/GradBlock.h"

#include "compiler/Codegen/Common/KernelEmitter.h"
#include "compiler/Codegen/Common/TileClassifier.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <limits>

using namespace mlir;

namespace {

/// The f32 working tiles: staged rows of q, dout, lse, delta and of k, v,
/// and the gradient rows a block sums.
struct GradTiles {
  Value q, dout, lse, delta, k, v, dq, dk, dv;
};

/// A (query row, key) pair's P and dS with respect to the raw dot product.
struct PairGradient {
  Value p, dsRaw;
};

class GradBlockBuilder : attnc::BlockEmitter {
public:
  GradBlockBuilder(OpBuilder &b, Location loc,
                   attn::AttentionScoringOpInterface op, Region &scoreGrad,
                   const attnc::KernelBuffers &buffers)
      : BlockEmitter(b, loc, /*threadId=*/Value(), 1), op(op),
        scoreGrad(scoreGrad), x(buffers) {
    blockM = op.getTiles()->getBlockM();
    blockN = op.getTiles()->getBlockN();
    headDim = op.getQ().getType().getDimSize(3);
    headDimV = op.getV().getType().getDimSize(3);
    dotFlags = arith::FastMathFlagsAttr::get(
        b.getContext(),
        arith::FastMathFlags::reassoc | arith::FastMathFlags::contract);
  }

  /// attention_grad_kv: dk and dv of the block's keys, and dq into
  /// `dqAccum` (null: none).
  void keyBlock(ValueRange ids, Value dk, Value dv, Value dqAccum);
  /// attention_grad_q: dq of the block's query rows.
  void queryBlock(ValueRange ids, Value dq);

private:
  Value operand(int64_t i) { return x.operands[i]; }
  Value dim(Value memref, int64_t d) {
    return memref::DimOp::create(b, loc, memref, d);
  }
  Value minIndex(Value a, Value c) {
    return arith::MinUIOp::create(b, loc, a, c);
  }
  Value alloc(ArrayRef<int64_t> shape) {
    return memref::AllocOp::create(b, loc, MemRefType::get(shape, f32));
  }
  Value fsum(Value a, Value c) {
    return arith::AddFOp::create(b, loc, a, c, dotFlags);
  }
  Value fmul(Value a, Value c) {
    return arith::MulFOp::create(b, loc, a, c, dotFlags);
  }
  Value dot(Value tileA, Value i, Value tileB, Value j, int64_t width) {
    return reduce(
        index(width), f32Const(0.0),
        [&](Value d) {
          return fmul(load(tileA, {i, d}), load(tileB, {j, d}));
        },
        [&](Value acc, Value term) { return fsum(acc, term); });
  }
  void zero(Value tile, Value count, int64_t width) {
    forEachElement(count, width, [&](Value r, Value c) {
      store(f32Const(0.0), tile, {r, c});
    });
  }
  /// tile[row, :] += factor · source[srcRow, :]
  void axpy(Value tile, Value row, Value factor, Value source, Value srcRow,
            int64_t width) {
    loopTo(index(width), [&](Value d) {
      store(fsum(load(tile, {row, d}), fmul(factor, load(source, {srcRow, d}))),
            tile, {row, d});
    });
  }

  GradTiles allocTiles();
  void freeTiles(const GradTiles &t);
  void stageQueryRows(const GradTiles &t, Value batch, Value head, Value q0,
                      Value rows);
  Value allowed(Value mayBlock, ValueRange indices);
  PairGradient pairGradient(const GradTiles &t, Value i, Value j,
                            ValueRange indices, Value mayBlock);
  void writeRows(Value tile, Value out, ValueRange prefix, Value first,
                 Value count, int64_t width);
  void queryTileOfKeyBlock(const GradTiles &t, ValueRange ids, Value head,
                           Value q0, Value k0, Value cols, Value dqAccum);

  attn::AttentionScoringOpInterface op;
  Region &scoreGrad;
  const attnc::KernelBuffers &x;
  int64_t blockM, blockN, headDim, headDimV;
  arith::FastMathFlagsAttr dotFlags;
};

GradTiles GradBlockBuilder::allocTiles() {
  return {alloc({blockM, headDim}), alloc({blockM, headDimV}),
          alloc({blockM}),          alloc({blockM}),
          alloc({blockN, headDim}), alloc({blockN, headDimV}),
          alloc({blockM, headDim}), alloc({blockN, headDim}),
          alloc({blockN, headDimV})};
}

void GradBlockBuilder::freeTiles(const GradTiles &t) {
  for (Value tile : {t.q, t.dout, t.lse, t.delta, t.k, t.v, t.dq, t.dk, t.dv})
    memref::DeallocOp::create(b, loc, tile);
}

/// Stages q, dout, lse and delta of rows [q0, q0 + rows) of (batch, head).
void GradBlockBuilder::stageQueryRows(const GradTiles &t, Value batch,
                                      Value head, Value q0, Value rows) {
  stageRows(operand(0), t.q, batch, head, q0, rows, headDim);
  stageRows(operand(5), t.dout, batch, head, q0, rows, headDimV);
  loopTo(rows, [&](Value i) {
    store(load(operand(3), {batch, head, add(q0, i)}), t.lse, {i});
    store(load(operand(4), {batch, head, add(q0, i)}), t.delta, {i});
  });
}

/// Whether the pair is allowed: the element mask on partial tiles only.
Value GradBlockBuilder::allowed(Value mayBlock, ValueRange indices) {
  if (!attnc::hasMask(op))
    return Value();
  return ifElse(
      mayBlock, b.getI1Type(),
      [&] {
        return attnc::emitElementMask(b, loc, op, indices[0], indices[1],
                                      indices[2], indices[3]);
      },
      [&] {
        return arith::ConstantIntOp::create(b, loc, 1, 1).getResult();
      })[0];
}

PairGradient GradBlockBuilder::pairGradient(const GradTiles &t, Value i,
                                            Value j, ValueRange indices,
                                            Value mayBlock) {
  using P = arith::CmpFPredicate;
  Value scale = f32Const(op.getEffectiveScale());
  Value scaled = arith::MulFOp::create(b, loc, dot(t.q, i, t.k, j, headDim),
                                       scale);
  SmallVector<Value> args = {scaled};
  llvm::append_range(args, indices);
  Value s = op.getScore().empty() ? scaled
                                  : attnc::inlineRegion(b, op.getScore(), args);
  Value lse = load(t.lse, {i});
  Value zeroF = f32Const(0.0);
  Value live = arith::CmpFOp::create(
      b, loc, P::OGT, lse,
      f32Const(-std::numeric_limits<double>::infinity()));
  if (Value ok = allowed(mayBlock, indices))
    live = arith::AndIOp::create(b, loc, live, ok);
  Value p = arith::SelectOp::create(
      b, loc, live,
      math::ExpOp::create(b, loc, arith::SubFOp::create(b, loc, s, lse)),
      zeroF);
  Value dp = dot(t.dout, i, t.v, j, headDimV);
  Value ds = arith::MulFOp::create(
      b, loc, p, arith::SubFOp::create(b, loc, dp, load(t.delta, {i})));
  Value factor = scale;
  if (!scoreGrad.empty())
    factor = arith::MulFOp::create(b, loc, factor,
                                   attnc::inlineRegion(b, scoreGrad, args));
  Value none = arith::CmpFOp::create(b, loc, P::OEQ, p, zeroF);
  Value dsRaw = arith::SelectOp::create(
      b, loc, none, zeroF, arith::MulFOp::create(b, loc, ds, factor));
  return {p, dsRaw};
}

/// out[prefix..., first + r, d] = tile[r, d] for r < count, converted.
void GradBlockBuilder::writeRows(Value tile, Value out, ValueRange prefix,
                                 Value first, Value count, int64_t width) {
  forEachElement(count, width, [&](Value r, Value d) {
    SmallVector<Value> indices(prefix);
    indices.append({add(first, r), d});
    store(fromF32(load(tile, {r, d}), out), out, indices);
  });
}

/// One query tile [q0, q0 + rows) of head `head` against the block's keys.
void GradBlockBuilder::queryTileOfKeyBlock(const GradTiles &t, ValueRange ids,
                                           Value head, Value q0, Value k0,
                                           Value cols, Value dqAccum) {
  Value batch = ids[2];
  Value rows = minIndex(index(blockM),
                        arith::SubIOp::create(b, loc, dim(operand(0), 2), q0));
  Value qLast = arith::SubIOp::create(b, loc, add(q0, rows), index(1));
  Value kLast = arith::SubIOp::create(b, loc, add(k0, cols), index(1));
  attnc::TileClass tile =
      attnc::classifyTile(b, loc, op, {batch, head, q0, qLast, k0, kLast});
  ifThen(tile.mayAllow, [&] {
    stageQueryRows(t, batch, head, q0, rows);
    if (dqAccum)
      zero(t.dq, rows, headDim);
    loopTo(rows, [&](Value i) {
      loopTo(cols, [&](Value j) {
        PairGradient g = pairGradient(t, i, j, {batch, head, add(q0, i),
                                                add(k0, j)},
                                      tile.mayBlock);
        axpy(t.dv, j, g.p, t.dout, i, headDimV);
        axpy(t.dk, j, g.dsRaw, t.q, i, headDim);
        if (dqAccum)
          axpy(t.dq, i, g.dsRaw, t.k, j, headDim);
      });
    });
    if (!dqAccum)
      return;
    // Other key blocks add to the same rows concurrently.
    forEachElement(rows, headDim, [&](Value i, Value d) {
      memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addf,
                                  load(t.dq, {i, d}), dqAccum,
                                  ValueRange{batch, head, add(q0, i), d});
    });
  });
}

void GradBlockBuilder::keyBlock(ValueRange ids, Value dk, Value dv,
                                Value dqAccum) {
  Value kvHead = ids[1], batch = ids[2];
  Value k0 = mul(ids[0], index(blockN));
  Value cols = minIndex(index(blockN),
                        arith::SubIOp::create(b, loc, dim(operand(1), 2), k0));
  Value kLast = arith::SubIOp::create(b, loc, add(k0, cols), index(1));
  GradTiles t = allocTiles();
  stageRows(operand(1), t.k, batch, kvHead, k0, cols, headDim);
  stageRows(operand(2), t.v, batch, kvHead, k0, cols, headDimV);
  zero(t.dk, cols, headDim);
  zero(t.dv, cols, headDimV);
  int64_t group = op.getGroupSize();
  attnc::KeyRange queries = attnc::queryLoopBounds(
      b, loc, op, k0, kLast, dim(operand(0), 2), blockM);
  // The group's query heads all add into this block's dk and dv.
  loopTo(index(group), [&](Value member) {
    Value head = add(mul(kvHead, index(group)), member);
    loop(queries.begin, queries.end, index(blockM), [&](Value q0) {
      queryTileOfKeyBlock(t, ids, head, q0, k0, cols, dqAccum);
    });
  });
  if (dk)
    writeRows(t.dk, dk, {batch, kvHead}, k0, cols, headDim);
  if (dv)
    writeRows(t.dv, dv, {batch, kvHead}, k0, cols, headDimV);
  freeTiles(t);
}

void GradBlockBuilder::queryBlock(ValueRange ids, Value dq) {
  Value head = ids[1], batch = ids[2];
  Value q0 = mul(ids[0], index(blockM));
  Value rows = minIndex(index(blockM),
                        arith::SubIOp::create(b, loc, dim(operand(0), 2), q0));
  Value qLast = arith::SubIOp::create(b, loc, add(q0, rows), index(1));
  Value kvHead =
      arith::DivUIOp::create(b, loc, head, index(op.getGroupSize()));
  Value seqK = dim(operand(1), 2);
  GradTiles t = allocTiles();
  stageQueryRows(t, batch, head, q0, rows);
  zero(t.dq, rows, headDim);
  attnc::KeyRange keys =
      attnc::keyLoopBounds(b, loc, op, q0, qLast, seqK, blockN);
  loop(keys.begin, keys.end, index(blockN), [&](Value k0) {
    Value cols =
        minIndex(index(blockN), arith::SubIOp::create(b, loc, seqK, k0));
    Value kLast = arith::SubIOp::create(b, loc, add(k0, cols), index(1));
    attnc::TileClass tile =
        attnc::classifyTile(b, loc, op, {batch, head, q0, qLast, k0, kLast});
    ifThen(tile.mayAllow, [&] {
      stageRows(operand(1), t.k, batch, kvHead, k0, cols, headDim);
      stageRows(operand(2), t.v, batch, kvHead, k0, cols, headDimV);
      loopTo(rows, [&](Value i) {
        loopTo(cols, [&](Value j) {
          PairGradient g = pairGradient(
              t, i, j, {batch, head, add(q0, i), add(k0, j)}, tile.mayBlock);
          axpy(t.dq, i, g.dsRaw, t.k, j, headDim);
        });
      });
    });
  });
  writeRows(t.dq, dq, {batch, head}, q0, rows, headDim);
  freeTiles(t);
}

/// attention_grad_delta: per row of the block, delta = out · dout and a
/// zeroed row of the dq accumulator (each when kept).
class DeltaBlockBuilder : attnc::BlockEmitter {
public:
  DeltaBlockBuilder(OpBuilder &b, Location loc, attn::AttentionGradDeltaOp op,
                    const attnc::KernelBuffers &x)
      : BlockEmitter(b, loc, /*threadId=*/Value(), 1), op(op), x(x) {}

  void emit(ValueRange ids) {
    Value out = x.operands[0], dout = x.operands[1];
    Value delta = x.results[0], accum = x.results[1];
    Value head = ids[1], batch = ids[2];
    int64_t rowsPerBlock = *op.getBlockSize();
    int64_t width = op.getOut().getType().getDimSize(3);
    Value first = mul(ids[0], index(rowsPerBlock));
    Value end = arith::MinUIOp::create(
        b, loc, memref::DimOp::create(b, loc, out, 2),
        add(first, index(rowsPerBlock)));
    loop(first, end, index(1), [&](Value i) {
      if (delta) {
        Value sum = reduce(
            index(width), f32Const(0.0),
            [&](Value d) {
              return arith::MulFOp::create(
                         b, loc, toF32(load(out, {batch, head, i, d})),
                         toF32(load(dout, {batch, head, i, d})))
                  .getResult();
            },
            [&](Value acc, Value term) {
              return arith::AddFOp::create(b, loc, acc, term).getResult();
            });
        store(sum, delta, {batch, head, i});
      }
      if (accum)
        loopTo(index(cast<MemRefType>(accum.getType()).getDimSize(3)),
               [&](Value d) {
                 store(f32Const(0.0), accum, {batch, head, i, d});
               });
    });
  }

private:
  attn::AttentionGradDeltaOp op;
  const attnc::KernelBuffers &x;
};

/// Blocks of `blockRows` rows of `seq` along x, then `heads`, then batch.
SmallVector<Value, 3> rowGrid(OpBuilder &b, Location loc, Value seq,
                              int64_t blockRows, int64_t heads, Value batch) {
  Value blocks = arith::CeilDivUIOp::create(
      b, loc, seq, arith::ConstantIndexOp::create(b, loc, blockRows));
  return {blocks, arith::ConstantIndexOp::create(b, loc, heads), batch};
}

} // namespace

SmallVector<Value, 3>
attnc::gradDeltaGrid(OpBuilder &b, Location loc,
                     attn::AttentionGradDeltaOp op,
                     const KernelBuffers &buffers) {
  Value out = buffers.operands[0];
  return rowGrid(b, loc, memref::DimOp::create(b, loc, out, 2),
                 *op.getBlockSize(), op.getOut().getType().getDimSize(1),
                 memref::DimOp::create(b, loc, out, 0));
}

SmallVector<Value, 3>
attnc::gradKernelGrid(OpBuilder &b, Location loc,
                      attn::AttentionScoringOpInterface op,
                      const KernelBuffers &buffers) {
  // Key blocks of each key/value head, or query blocks of each query head.
  bool overKeys = isa<attn::AttentionGradKVOp>(op);
  Value rowsOf = buffers.operands[overKeys ? 1 : 0];
  attn::TilesAttr tiles = *op.getTiles();
  return rowGrid(b, loc, memref::DimOp::create(b, loc, rowsOf, 2),
                 overKeys ? tiles.getBlockN() : tiles.getBlockM(),
                 (overKeys ? op.getK() : op.getQ()).getType().getDimSize(1),
                 memref::DimOp::create(b, loc, rowsOf, 0));
}

void attnc::emitGradDeltaBlock(OpBuilder &b, Location loc,
                               attn::AttentionGradDeltaOp op,
                               const KernelBuffers &buffers, ValueRange ids) {
  DeltaBlockBuilder(b, loc, op, buffers).emit(ids);
}

void attnc::emitGradKVBlock(OpBuilder &b, Location loc,
                            attn::AttentionGradKVOp op,
                            const KernelBuffers &buffers, ValueRange ids) {
  Value dqAccum = op.getDqAccum() ? buffers.results[2] : Value();
  GradBlockBuilder(b, loc, op, op.getScoreGrad(), buffers)
      .keyBlock(ids, buffers.results[0], buffers.results[1], dqAccum);
}

void attnc::emitGradQBlock(OpBuilder &b, Location loc,
                           attn::AttentionGradQOp op,
                           const KernelBuffers &buffers, ValueRange ids) {
  GradBlockBuilder(b, loc, op, op.getScoreGrad(), buffers)
      .queryBlock(ids, buffers.results[0]);
}
