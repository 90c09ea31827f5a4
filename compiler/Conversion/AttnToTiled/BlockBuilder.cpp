//===- BlockBuilder.cpp - One block of the tiled attention kernel ---------===//
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
//     S = Q Kᵀ * scale * log2(e)     (or score(Q Kᵀ * scale) * log2(e))
//     if the tile is partial: S = mask ? S : -inf
//     online softmax: m' = max(m, rowmax S); P = exp2(S - m');
//                     a = exp2(m - m'); l = a l + rowsum P; acc = a acc + P V
//   out = acc / l; lse = (m + log2 l) ln 2    (0 and -inf when l = 0)
//
// Loops over rows and keys stop at the valid extent of the tile, so nothing
// out of bounds is read or kept.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/AttnToTiled/BlockBuilder.h"

#include "compiler/Conversion/AttnToTiled/KernelEmitter.h"
#include "compiler/Conversion/AttnToTiled/TileClassifier.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>

using namespace mlir;

namespace {

class BlockBuilder : attnc::KernelEmitter {
public:
  BlockBuilder(OpBuilder &b, Location loc, attn::AttentionOp op, Value threadId)
      : KernelEmitter(b, loc), op(op), threadId(threadId), f32(b.getF32Type()) {
    c0 = index(0);
    c1 = index(1);
    // The dot products may be reassociated and fused so they vectorize.
    dotFlags = arith::FastMathFlagsAttr::get(
        b.getContext(),
        arith::FastMathFlags::reassoc | arith::FastMathFlags::contract);
  }

  void emit(const attnc::KernelOperands &x, const attnc::BlockTiles &t,
            Value qBlock, Value head, Value batch);

private:
  using KernelEmitter::loop;
  template <typename Fn> void loop(Value ub, Fn body) {
    loop(c0, ub, c1, body);
  }

  //===--------------------------------------------------------------------===//
  // Thread mapping
  //===--------------------------------------------------------------------===//

  /// body(i) for each row i < rows of the block: a loop on the host, the
  /// thread's own row on a GPU.
  template <typename Fn> void forEachRow(Value rows, Fn body) {
    if (!threadId)
      return loop(rows, body);
    ifThen(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, threadId,
                                 rows),
           [&] { body(threadId); });
  }

  /// body(row, col) for row < count, col < width: nested loops on the host;
  /// on a GPU the flattened index space strided over the block's threads,
  /// consecutive threads on consecutive columns (coalesced reads).
  template <typename Fn>
  void forEachElement(Value count, int64_t width, Fn body) {
    if (!threadId) {
      loop(count, [&](Value row) {
        loop(index(width), [&](Value col) { body(row, col); });
      });
      return;
    }
    Value total = arith::MulIOp::create(b, loc, count, index(width));
    loop(threadId, total, index(blockThreads), [&](Value flat) {
      body(arith::DivUIOp::create(b, loc, flat, index(width)),
           arith::RemUIOp::create(b, loc, flat, index(width)));
    });
  }

  /// Orders shared-tile writes before reads on a GPU; nothing on the host.
  void barrier() {
    if (threadId)
      gpu::BarrierOp::create(b, loc);
  }

  Value load(Value memref, ValueRange indices) {
    return memref::LoadOp::create(b, loc, memref, indices);
  }
  void store(Value value, Value memref, ValueRange indices) {
    memref::StoreOp::create(b, loc, value, memref, indices);
  }
  Value toF32(Value v) {
    return v.getType() == f32 ? v : arith::ExtFOp::create(b, loc, f32, v);
  }

  /// Copies rows [0, count) of a [B, H, N, D] input, starting at sequence
  /// position `first` of (batch, head), into the f32 tile `tile`.
  void stageRows(Value input, Value tile, Value batch, Value head, Value first,
                 Value count, int64_t width) {
    forEachElement(count, width, [&](Value row, Value col) {
      store(toF32(load(input, {batch, head, add(first, row), col})), tile,
            {row, col});
    });
  }

  attn::AttentionOp op;
  Value threadId;
  int64_t blockThreads = 1;
  Type f32;
  Value c0, c1;
  arith::FastMathFlagsAttr dotFlags;
};

void BlockBuilder::emit(const attnc::KernelOperands &x,
                        const attnc::BlockTiles &t, Value qBlock, Value head,
                        Value batch) {
  auto qType = cast<MemRefType>(x.q.getType());
  int64_t headDim = qType.getDimSize(3);
  int64_t headDimV = cast<MemRefType>(x.v.getType()).getDimSize(3);
  attn::TilesAttr tiles = *op.getTiles();
  int64_t blockM = tiles.getBlockM(), blockN = tiles.getBlockN();
  blockThreads = blockM;
  Value cBlockM = index(blockM), cBlockN = index(blockN);

  float scale = op.getEffectiveScale();
  const double log2e = 1.4426950408889634, ln2 = 0.6931471805599453;
  Value negInf = f32Const(-std::numeric_limits<double>::infinity());
  Value zero = f32Const(0.0);

  Value seqQ = memref::DimOp::create(b, loc, x.q, 2);
  Value seqK = memref::DimOp::create(b, loc, x.k, 2);
  Value headKV = arith::DivUIOp::create(b, loc, head, index(op.getGroupSize()));
  Value q0 = arith::MulIOp::create(b, loc, qBlock, cBlockM);
  Value rows = arith::MinUIOp::create(b, loc, cBlockM,
                                      arith::SubIOp::create(b, loc, seqQ, q0));
  Value qLast = arith::SubIOp::create(b, loc, add(q0, rows), c1);

  stageRows(x.q, t.q, batch, head, q0, rows, headDim);
  barrier();
  forEachRow(rows, [&](Value i) {
    store(negInf, t.rowMax, {i});
    store(zero, t.rowSum, {i});
    loop(index(headDimV), [&](Value d) { store(zero, t.acc, {i, d}); });
  });

  attnc::KeyRange keys =
      attnc::keyLoopBounds(b, loc, op, q0, qLast, seqK, blockN);

  loop(keys.begin, keys.end, cBlockN, [&](Value k0) {
    Value cols = arith::MinUIOp::create(
        b, loc, cBlockN, arith::SubIOp::create(b, loc, seqK, k0));
    Value kLast = arith::SubIOp::create(b, loc, add(k0, cols), c1);
    attnc::TileClass tileClass =
        attnc::classifyTile(b, loc, op, {batch, head, q0, qLast, k0, kLast});
    // The classification is uniform over the block, so GPU barriers inside
    // this branch are reached by every thread or none.
    ifThen(tileClass.mayAllow, [&] {
      barrier(); // the previous tile's K and V are no longer read
      stageRows(x.k, t.k, batch, headKV, k0, cols, headDim);
      stageRows(x.v, t.v, batch, headKV, k0, cols, headDimV);
      barrier();

      forEachRow(rows, [&](Value i) {
        Value qIdx = add(q0, i);
        // Scores in log2 units.
        loop(cols, [&](Value j) {
          Value dot = reduce(
              index(headDim), zero,
              [&](Value d) {
                return arith::MulFOp::create(b, loc, load(t.q, {i, d}),
                                             load(t.k, {j, d}), dotFlags)
                    .getResult();
              },
              [&](Value sum, Value term) {
                return arith::AddFOp::create(b, loc, sum, term, dotFlags)
                    .getResult();
              });
          Value score;
          if (op.getScore().empty()) {
            score = arith::MulFOp::create(b, loc, dot, f32Const(scale * log2e));
          } else {
            Value scaled = arith::MulFOp::create(b, loc, dot, f32Const(scale));
            Value modified = attnc::inlineRegion(
                b, op.getScore(), {scaled, batch, head, qIdx, add(k0, j)});
            score = arith::MulFOp::create(b, loc, modified, f32Const(log2e));
          }
          store(score, t.s, {i, j});
        });

        // Partial tiles only: full tiles pay no mask math.
        if (attnc::hasMask(op)) {
          ifThen(tileClass.mayBlock, [&] {
            loop(cols, [&](Value j) {
              Value allowed = attnc::emitElementMask(b, loc, op, batch, head,
                                                     qIdx, add(k0, j));
              store(arith::SelectOp::create(b, loc, allowed, load(t.s, {i, j}),
                                            negInf),
                    t.s, {i, j});
            });
          });
        }

        // Online softmax update of the row.
        Value oldMax = load(t.rowMax, {i});
        Value tileMax = reduce(
            cols, negInf,
            [&](Value j) {
              return load(t.s, {i, j});
            },
            [&](Value p, Value q) {
              return arith::MaximumFOp::create(b, loc, p, q).getResult();
            });
        Value newMax = arith::MaximumFOp::create(b, loc, oldMax, tileMax);
        // While every key so far is masked, exponents are taken against 0 so
        // that -inf - -inf never produces NaN.
        Value noneAllowed = arith::CmpFOp::create(
            b, loc, arith::CmpFPredicate::OEQ, newMax, negInf);
        Value pivot =
            arith::SelectOp::create(b, loc, noneAllowed, zero, newMax);
        Value alpha = math::Exp2Op::create(
            b, loc, arith::SubFOp::create(b, loc, oldMax, pivot));
        Value tileSum = reduce(
            cols, zero,
            [&](Value j) {
              Value p = math::Exp2Op::create(
                  b, loc,
                  arith::SubFOp::create(b, loc, load(t.s, {i, j}), pivot));
              store(p, t.s, {i, j});
              return p;
            },
            [&](Value p, Value q) {
              return arith::AddFOp::create(b, loc, p, q, dotFlags).getResult();
            });
        store(arith::AddFOp::create(
                  b, loc,
                  arith::MulFOp::create(b, loc, load(t.rowSum, {i}), alpha),
                  tileSum),
              t.rowSum, {i});
        store(newMax, t.rowMax, {i});
        loop(index(headDimV), [&](Value d) {
          store(arith::MulFOp::create(b, loc, load(t.acc, {i, d}), alpha),
                t.acc, {i, d});
        });
        loop(cols, [&](Value j) {
          Value p = load(t.s, {i, j});
          loop(index(headDimV), [&](Value d) {
            Value product =
                arith::MulFOp::create(b, loc, p, load(t.v, {j, d}), dotFlags);
            store(arith::AddFOp::create(b, loc, load(t.acc, {i, d}), product,
                                        dotFlags),
                  t.acc, {i, d});
          });
        });
      });
    });
  });

  // Epilogue: normalize and write the block's rows.
  forEachRow(rows, [&](Value i) {
    Value qIdx = add(q0, i);
    Value sum = load(t.rowSum, {i});
    Value anyAllowed =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, sum, zero);
    if (x.out) {
      Value inverse = arith::SelectOp::create(
          b, loc, anyAllowed, arith::DivFOp::create(b, loc, f32Const(1.0), sum),
          zero);
      Type outType = cast<MemRefType>(x.out.getType()).getElementType();
      loop(index(headDimV), [&](Value d) {
        Value value =
            arith::MulFOp::create(b, loc, load(t.acc, {i, d}), inverse);
        if (outType != f32)
          value = arith::TruncFOp::create(b, loc, outType, value);
        store(value, x.out, {batch, head, qIdx, d});
      });
    }
    if (x.lse) {
      Value log2Sum = arith::AddFOp::create(b, loc, load(t.rowMax, {i}),
                                            math::Log2Op::create(b, loc, sum));
      Value natural = arith::MulFOp::create(b, loc, log2Sum, f32Const(ln2));
      store(arith::SelectOp::create(b, loc, anyAllowed, natural, negInf), x.lse,
            {batch, head, qIdx});
    }
  });
}

} // namespace

void attnc::emitAttentionBlock(OpBuilder &b, Location loc, attn::AttentionOp op,
                               const KernelOperands &operands,
                               const BlockTiles &tiles, Value qBlock,
                               Value head, Value batch, Value threadId) {
  BlockBuilder(b, loc, op, threadId).emit(operands, tiles, qBlock, head, batch);
}
