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
// A row with lse = -inf has p = 0 everywhere, so its gradients are 0.
//
// attention_grad_kv, per query tile of a block of keys:
//   stage q, dout, lse, delta rows                      (all threads)
//   P[i, j], dS[i, j] for the tile                      (thread j)
//   dv_j += sum_i P[i, j] dout_i; dk_j += sum_i dS[i, j] q_i   (thread j)
//   dq_i += sum_j dS[i, j] k_j, added atomically        (threads over i, d)
// attention_grad_q, per key tile of a block of query rows:
//   stage k, v rows (all threads); dq_i += sum_j dS[i, j] k_j (thread i)
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/Common/GradBlock.h"

#include "compiler/Codegen/Common/KernelEmitter.h"
#include "compiler/Codegen/Common/RowSwizzle.h"
#include "compiler/Codegen/Common/TileClassifier.h"
#include "compiler/Codegen/Common/VectorAccess.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

using namespace mlir;
using attnc::f32Constant;

namespace {

using attnc::PairGradient;

class GradBlockBuilder : attnc::BlockEmitter {
public:
  GradBlockBuilder(OpBuilder &b, Location loc,
                   attn::AttentionScoringOpInterface op, Region &scoreGrad,
                   const attnc::KernelBuffers &buffers,
                   const attnc::GradTiles &t, Value threadId)
      : BlockEmitter(b, loc, threadId, attnc::gradKernelThreads(op)), op(op),
        scoreGrad(scoreGrad), x(buffers), t(t) {
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
  Value fsum(Value a, Value c) {
    return arith::AddFOp::create(b, loc, a, c, dotFlags);
  }
  Value fmul(Value a, Value c) {
    return arith::MulFOp::create(b, loc, a, c, dotFlags);
  }
  /// sum over n < count of term(n), reassociable.
  template <typename Fn> Value sumOver(Value count, Fn term) {
    return reduce(count, f32Const(0.0), term,
                  [&](Value acc, Value v) { return fsum(acc, v); });
  }
  Value dot(Value tileA, Value i, Value tileB, Value j, int64_t width) {
    return sumOver(index(width), [&](Value d) {
      return fmul(load(tileA, {i, d}), load(tileB, {j, d}));
    });
  }
  void zero(Value tile, Value count, int64_t width) {
    forEachElement(count, width, [&](Value r, Value c) {
      store(f32Const(0.0), tile, {r, c});
    });
  }

  void stageQueryRows(Value batch, Value head, Value q0, Value rows);
  Value allowed(Value mayBlock, ValueRange indices);
  PairGradient pairGradient(Value i, Value j, ValueRange indices,
                            Value mayBlock);
  void writeRows(Value tile, Value out, ValueRange prefix, Value first,
                 Value count, int64_t width);
  void queryTileOfKeyBlock(Value batch, Value head, Value q0, Value k0,
                           Value cols, Value dqAccum);
  void addKeyRowSums(Value rows, Value cols);
  void addQueryRowSums(Value batch, Value head, Value q0, Value rows,
                       Value cols, Value dqAccum);

  attn::AttentionScoringOpInterface op;
  Region &scoreGrad;
  const attnc::KernelBuffers &x;
  attnc::GradTiles t;
  int64_t blockM, blockN, headDim, headDimV;
  arith::FastMathFlagsAttr dotFlags;
  Value diagonal; // the mask's diagonalOffset, set by keyBlock or queryBlock
};

/// Stages q, dout, lse and delta of rows [q0, q0 + rows) of (batch, head).
void GradBlockBuilder::stageQueryRows(Value batch, Value head, Value q0,
                                      Value rows) {
  stageRows(operand(0), t.q, batch, head, q0, rows, headDim);
  stageRows(operand(5), t.dout, batch, head, q0, rows, headDimV);
  forEachElement(rows, 1, [&](Value i, Value) {
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
        return attnc::emitElementMask(b, loc, op, diagonal, indices[0],
                                      indices[1], indices[2], indices[3]);
      },
      [&] {
        return arith::ConstantIntOp::create(b, loc, 1, 1).getResult();
      })[0];
}

PairGradient GradBlockBuilder::pairGradient(Value i, Value j,
                                            ValueRange indices,
                                            Value mayBlock) {
  return attnc::pairGradient(
      b, loc, op, scoreGrad, dot(t.q, i, t.k, j, headDim),
      dot(t.dout, i, t.v, j, headDimV), load(t.lse, {i}), load(t.delta, {i}),
      indices, allowed(mayBlock, indices));
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

/// dv_j += sum_i P[i, j] dout_i and dk_j += sum_i dS[i, j] q_i, each key
/// row by its own thread.
void GradBlockBuilder::addKeyRowSums(Value rows, Value cols) {
  forEachRow(cols, [&](Value j) {
    loopTo(index(headDimV), [&](Value d) {
      Value sum = sumOver(rows, [&](Value i) {
        return fmul(load(t.p, {i, j}), load(t.dout, {i, d}));
      });
      store(fsum(load(t.dv, {j, d}), sum), t.dv, {j, d});
    });
    loopTo(index(headDim), [&](Value d) {
      Value sum = sumOver(rows, [&](Value i) {
        return fmul(load(t.ds, {i, j}), load(t.q, {i, d}));
      });
      store(fsum(load(t.dk, {j, d}), sum), t.dk, {j, d});
    });
  });
}

/// dq_i += sum_j dS[i, j] k_j into the accumulator (its rows in the op's
/// row_swizzle order), atomically: other key blocks add to the same rows
/// concurrently.
void GradBlockBuilder::addQueryRowSums(Value batch, Value head, Value q0,
                                       Value rows, Value cols, Value dqAccum) {
  std::optional<int64_t> swizzle =
      cast<attn::AttentionGradKVOp>(op.getOperation()).getRowSwizzle();
  forEachElement(rows, headDim, [&](Value i, Value d) {
    Value sum = sumOver(cols, [&](Value j) {
      return fmul(load(t.ds, {i, j}), load(t.k, {j, d}));
    });
    Value row = add(q0, i);
    Value column =
        swizzle ? attnc::swizzledColumn(b, loc, row, d, *swizzle) : d;
    memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addf, sum,
                                dqAccum, ValueRange{batch, head, row, column});
  });
}

/// One query tile [q0, q0 + rows) of head `head` against the block's keys.
void GradBlockBuilder::queryTileOfKeyBlock(Value batch, Value head, Value q0,
                                           Value k0, Value cols,
                                           Value dqAccum) {
  Value rows = validRows(blockM, dim(operand(0), 2), q0);
  attnc::TileClass tile = attnc::classifyTile(
      b, loc, op,
      {batch, head, q0, lastOf(q0, rows), k0, lastOf(k0, cols), diagonal});
  // The classification is uniform over the block, so GPU barriers inside
  // this branch are reached by every thread or none.
  ifThen(tile.mayAllow, [&] {
    barrier(); // the previous tile's rows and P/dS are no longer read
    stageQueryRows(batch, head, q0, rows);
    barrier();
    forEachRow(cols, [&](Value j) {
      loopTo(rows, [&](Value i) {
        PairGradient g = pairGradient(
            i, j, {batch, head, add(q0, i), add(k0, j)}, tile.mayBlock);
        store(g.p, t.p, {i, j});
        store(g.dsRaw, t.ds, {i, j});
      });
    });
    barrier();
    addKeyRowSums(rows, cols);
    if (dqAccum)
      addQueryRowSums(batch, head, q0, rows, cols, dqAccum);
  });
}

void GradBlockBuilder::keyBlock(ValueRange ids, Value dk, Value dv,
                                Value dqAccum) {
  Value kvHead = ids[1], batch = ids[2];
  Value k0 = mul(ids[0], index(blockN));
  Value cols = validRows(blockN, dim(operand(1), 2), k0);
  diagonal =
      attnc::diagonalOffset(b, loc, op, dim(operand(0), 2), dim(operand(1), 2));
  stageRows(operand(1), t.k, batch, kvHead, k0, cols, headDim);
  stageRows(operand(2), t.v, batch, kvHead, k0, cols, headDimV);
  zero(t.dk, cols, headDim);
  zero(t.dv, cols, headDimV);
  int64_t group = op.getGroupSize();
  attnc::KeyRange queries = attnc::queryLoopBounds(
      b, loc, op, k0, lastOf(k0, cols), dim(operand(0), 2), diagonal, blockM);
  // The group's query heads all add into this block's dk and dv.
  loopTo(index(group), [&](Value member) {
    Value head = add(mul(kvHead, index(group)), member);
    loop(queries.begin, queries.end, index(blockM), [&](Value q0) {
      queryTileOfKeyBlock(batch, head, q0, k0, cols, dqAccum);
    });
  });
  barrier();
  if (dk)
    writeRows(t.dk, dk, {batch, kvHead}, k0, cols, headDim);
  if (dv)
    writeRows(t.dv, dv, {batch, kvHead}, k0, cols, headDimV);
}

void GradBlockBuilder::queryBlock(ValueRange ids, Value dq) {
  Value head = ids[1], batch = ids[2];
  Value q0 = mul(ids[0], index(blockM));
  Value rows = validRows(blockM, dim(operand(0), 2), q0);
  Value qLast = lastOf(q0, rows);
  Value kvHead = arith::DivUIOp::create(b, loc, head, index(op.getGroupSize()));
  Value seqK = dim(operand(1), 2);
  diagonal = attnc::diagonalOffset(b, loc, op, dim(operand(0), 2), seqK);
  stageQueryRows(batch, head, q0, rows);
  zero(t.dq, rows, headDim);
  attnc::KeyRange keys =
      attnc::keyLoopBounds(b, loc, op, q0, qLast, seqK, diagonal, blockN);
  loop(keys.begin, keys.end, index(blockN), [&](Value k0) {
    Value cols = validRows(blockN, seqK, k0);
    attnc::TileClass tile = attnc::classifyTile(
        b, loc, op, {batch, head, q0, qLast, k0, lastOf(k0, cols), diagonal});
    ifThen(tile.mayAllow, [&] {
      barrier(); // the previous key tile is no longer read
      stageRows(operand(1), t.k, batch, kvHead, k0, cols, headDim);
      stageRows(operand(2), t.v, batch, kvHead, k0, cols, headDimV);
      barrier();
      forEachRow(rows, [&](Value i) {
        loopTo(cols, [&](Value j) {
          PairGradient g = pairGradient(
              i, j, {batch, head, add(q0, i), add(k0, j)}, tile.mayBlock);
          loopTo(index(headDim), [&](Value d) {
            store(fsum(load(t.dq, {i, d}), fmul(g.dsRaw, load(t.k, {j, d}))),
                  t.dq, {i, d});
          });
        });
      });
    });
  });
  barrier();
  writeRows(t.dq, dq, {batch, head}, q0, rows, headDim);
}

/// attention_grad_delta: per row, delta = out · dout and a zeroed row of
/// the dq accumulator (each when kept).
class DeltaBlockBuilder : attnc::BlockEmitter {
public:
  DeltaBlockBuilder(OpBuilder &b, Location loc, attn::AttentionGradDeltaOp op,
                    const attnc::KernelBuffers &x, Value threadId)
      : BlockEmitter(b, loc, threadId, attnc::gradKernelThreads(op)), op(op),
        x(x) {}

  void emit(ValueRange ids) {
    Value batch = ids[2], head = ids[1];
    int64_t rowsPerBlock = *op.getBlockSize();
    Value first = mul(ids[0], index(rowsPerBlock));
    Value rows = arith::MinUIOp::create(
        b, loc, index(rowsPerBlock),
        arith::SubIOp::create(
            b, loc, memref::DimOp::create(b, loc, x.operands[0], 2), first));
    if (!threadId)
      return loopTo(rows, [&](Value r) {
        emitRow(batch, head, add(first, r), index(0), 1);
      });
    // A warp per row, its lanes on consecutive columns: a thread per row
    // made each load touch 32 rows' lines (H200, B4 H16 N4k D128: 0.37 ms
    // of a 6.5 ms backward, for 67 MB read).
    Value lane = arith::RemUIOp::create(b, loc, threadId, index(kWarp));
    Value warp = arith::DivUIOp::create(b, loc, threadId, index(kWarp));
    auto byLanes = [&] {
      loop(warp, rows, index(numThreads / kWarp),
           [&](Value r) { emitRow(batch, head, add(first, r), lane, kWarp); });
    };
    int64_t chunks = op.getOut().getType().getDimSize(3) / kChunk;
    if (chunks * kChunk != op.getOut().getType().getDimSize(3) ||
        kWarp % chunks != 0)
      return byLanes();
    // Through their strides: out and dout may be heads views.
    Value aligned = arith::AndIOp::create(
        b, loc, attnc::hasAlignedRows(b, loc, x.operands[0]),
        attnc::hasAlignedRows(b, loc, x.operands[1]));
    ifThenElse(
        aligned,
        [&] { emitChunkRows(batch, head, first, rows, lane, warp, chunks); },
        byLanes);
  }

private:
  static constexpr int64_t kWarp = 32;
  static constexpr int64_t kChunk = attnc::kElementVectorWidth;

  /// Aligned rows of out and dout: a row is `chunks` lanes of one 16-byte
  /// load each, so a warp takes 32 / chunks rows at once (2 at D128); with
  /// 2-byte loads a lane issued eight times the instructions for the same
  /// bytes. All lanes of a warp run the same rows loop, so that the
  /// shuffles meet.
  void emitChunkRows(Value batch, Value head, Value first, Value rows,
                     Value lane, Value warp, int64_t chunks) {
    int64_t rowsPerWarp = kWarp / chunks;
    Value sub = divUI(lane, index(chunks));
    Value part = arith::RemUIOp::create(b, loc, lane, index(chunks));
    Value column = mul(part, index(kChunk));
    Value out =
        attnc::denseView(b, loc, x.operands[0], attnc::DenseLayout::Strided);
    Value dout =
        attnc::denseView(b, loc, x.operands[1], attnc::DenseLayout::Strided);
    Value delta = x.results[0], accum = x.results[1];
    loop(
        mul(warp, index(rowsPerWarp)), rows,
        index(numThreads / kWarp * rowsPerWarp), [&](Value r0) {
          Value r = add(r0, sub);
          Value i = add(first, r);
          Value inside =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, r, rows);
          Value term = ifElse(
              inside, {f32},
              [&] {
                SmallVector<Value, 4> at{batch, head, i, column};
                Value product = arith::MulFOp::create(
                    b, loc, attnc::loadChunk(b, loc, out, at, kChunk),
                    attnc::loadChunk(b, loc, dout, at, kChunk));
                return SmallVector<Value>{vector::ReductionOp::create(
                    b, loc, vector::CombiningKind::ADD, product)};
              },
              [&] { return SmallVector<Value>{f32Const(0.0)}; })[0];
          // Offsets below `chunks` keep each row's lanes among themselves.
          for (int64_t offset = chunks / 2; offset > 0; offset /= 2)
            term = arith::AddFOp::create(
                b, loc, term,
                gpu::ShuffleOp::create(b, loc, term, offset, kWarp,
                                       gpu::ShuffleMode::XOR)
                    .getShuffleResult());
          ifThen(inside, [&] {
            if (delta)
              storeFromLane0(term, delta, {batch, head, i}, part, chunks);
            if (accum)
              loop(part, index(cast<MemRefType>(accum.getType()).getDimSize(3)),
                   index(chunks), [&](Value d) {
                     store(f32Const(0.0), accum, {batch, head, i, d});
                   });
          });
        });
  }

  /// Row i: delta = sum over d of out * dout, the thread's terms those of
  /// columns lane, lane + lanes, ... (a constant count, so that their loads
  /// unroll and are in flight together), summed over the warp's lanes when
  /// there are several and stored by lane 0; the dq accumulator's row
  /// zeroed the same way.
  void emitRow(Value batch, Value head, Value i, Value lane, int64_t lanes) {
    Value delta = x.results[0], accum = x.results[1];
    if (delta)
      storeFromLane0(rowSum(batch, head, i, lane, lanes), delta,
                     {batch, head, i}, lane, lanes);
    if (accum)
      loop(lane, index(cast<MemRefType>(accum.getType()).getDimSize(3)),
           index(lanes), [&](Value d) {
             store(f32Const(0.0), accum, {batch, head, i, d});
           });
  }

  Value rowSum(Value batch, Value head, Value i, Value lane, int64_t lanes) {
    int64_t width = op.getOut().getType().getDimSize(3);
    return laneSum(width, lane, lanes, [&](Value d) -> Value {
      return arith::MulFOp::create(
          b, loc, toF32(load(x.operands[0], {batch, head, i, d})),
          toF32(load(x.operands[1], {batch, head, i, d})));
    });
  }

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

namespace {
/// The score region's arguments: the scaled dot product, then the indices.
SmallVector<Value> scoreArguments(OpBuilder &b, Location loc,
                                  attn::AttentionScoringOpInterface op,
                                  Value raw, ValueRange indices) {
  SmallVector<Value> args = {arith::MulFOp::create(
      b, loc, raw, f32Constant(b, loc, op.getEffectiveScale()))};
  llvm::append_range(args, indices);
  return args;
}
} // namespace

Value attnc::pairProbability(OpBuilder &b, Location loc,
                             attn::AttentionScoringOpInterface op, Value raw,
                             Value lseLog2, ValueRange indices, Value allowed,
                             bool guarded, Exp2Fn exp2) {
  ScoreModel model(op);
  Value p = exp2(math::FmaOp::create(b, loc, model.score(b, loc, raw, indices),
                                     model.factor(b, loc),
                                     arith::NegFOp::create(b, loc, lseLog2)));
  if (!guarded)
    return p;
  Value live = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OGT, lseLog2,
      f32Constant(b, loc, -std::numeric_limits<double>::infinity()));
  if (allowed)
    live = arith::AndIOp::create(b, loc, live, allowed);
  return arith::SelectOp::create(b, loc, live, p, f32Constant(b, loc, 0.0));
}

Value attnc::pairScoreGradient(OpBuilder &b, Location loc,
                               attn::AttentionScoringOpInterface op,
                               Region &scoreGrad, Value raw, Value p, Value dp,
                               Value delta, ValueRange indices, bool guarded) {
  Value zero = f32Constant(b, loc, 0.0);
  Value ds = arith::MulFOp::create(b, loc, p,
                                   arith::SubFOp::create(b, loc, dp, delta));
  Value factor = f32Constant(b, loc, op.getEffectiveScale());
  if (!scoreGrad.empty())
    factor = arith::MulFOp::create(
        b, loc, factor,
        attnc::inlineRegion(b, scoreGrad,
                            scoreArguments(b, loc, op, raw, indices)));
  Value dsRaw = arith::MulFOp::create(b, loc, ds, factor);
  // A pair with P = 0 contributes nothing, even where the score's
  // derivative is infinite.
  if (guarded || !scoreGrad.empty())
    dsRaw = arith::SelectOp::create(
        b, loc,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, p, zero), zero,
        dsRaw);
  return dsRaw;
}

PairGradient attnc::pairGradient(OpBuilder &b, Location loc,
                                 attn::AttentionScoringOpInterface op,
                                 Region &scoreGrad, Value raw, Value dp,
                                 Value lse, Value delta, ValueRange indices,
                                 Value allowed, bool guarded) {
  Value lseLog2 =
      arith::MulFOp::create(b, loc, lse, f32Constant(b, loc, kLog2E));
  Value p = pairProbability(
      b, loc, op, raw, lseLog2, indices, allowed, guarded,
      [&](Value x) { return math::Exp2Op::create(b, loc, x).getResult(); });
  return {p, pairScoreGradient(b, loc, op, scoreGrad, raw, p, dp, delta,
                               indices, guarded)};
}

SmallVector<SmallVector<int64_t, 2>, 11>
attnc::gradTileShapes(attn::AttentionScoringOpInterface op, int64_t pad) {
  int64_t blockM = op.getTiles()->getBlockM();
  int64_t blockN = op.getTiles()->getBlockN();
  int64_t headDim = op.getQ().getType().getDimSize(3) + pad;
  int64_t headDimV = op.getV().getType().getDimSize(3) + pad;
  return {{blockM, headDim},
          {blockM, headDimV},
          {blockM},
          {blockM},
          {blockN, headDim},
          {blockN, headDimV},
          {blockM, headDim},
          {blockN, headDim},
          {blockN, headDimV},
          {blockM, blockN + pad},
          {blockM, blockN + pad}};
}

attnc::GradTiles
attnc::makeGradTiles(attn::AttentionScoringOpInterface op, int64_t pad,
                     function_ref<Value(ArrayRef<int64_t>)> make) {
  SmallVector<Value, 11> v;
  for (const SmallVector<int64_t, 2> &shape : gradTileShapes(op, pad))
    v.push_back(make(shape));
  return {v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10]};
}

int64_t attnc::gradKernelThreads(Operation *op) {
  // Whatever the block's rows: its warps take them in turn.
  if (isa<attn::AttentionGradDeltaOp>(op))
    return 128;
  attn::TilesAttr tiles =
      *cast<attn::AttentionScoringOpInterface>(op).getTiles();
  return isa<attn::AttentionGradKVOp>(op) ? tiles.getBlockN()
                                          : tiles.getBlockM();
}

SmallVector<Value, 3> attnc::gradDeltaGrid(OpBuilder &b, Location loc,
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
                               const KernelBuffers &buffers, ValueRange ids,
                               Value threadId) {
  DeltaBlockBuilder(b, loc, op, buffers, threadId).emit(ids);
}

void attnc::emitGradKVBlock(OpBuilder &b, Location loc,
                            attn::AttentionGradKVOp op,
                            const KernelBuffers &buffers,
                            const GradTiles &tiles, ValueRange ids,
                            Value threadId) {
  Value dqAccum = op.getDqAccum() ? buffers.results[2] : Value();
  GradBlockBuilder(b, loc, op, op.getScoreGrad(), buffers, tiles, threadId)
      .keyBlock(ids, buffers.results[0], buffers.results[1], dqAccum);
}

void attnc::emitGradQBlock(OpBuilder &b, Location loc,
                           attn::AttentionGradQOp op,
                           const KernelBuffers &buffers, const GradTiles &tiles,
                           ValueRange ids, Value threadId) {
  GradBlockBuilder(b, loc, op, op.getScoreGrad(), buffers, tiles, threadId)
      .queryBlock(ids, buffers.results[0]);
}
