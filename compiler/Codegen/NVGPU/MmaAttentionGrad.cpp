//===- MmaAttentionGrad.cpp - Tensor-core attention backward --------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// FlashAttention-2's backward on mma.sync. attention_grad_kv: a block of
// keys, a warp per 16 of them, dK and dV in registers across the query
// tiles of every head of the group:
//
//   Sᵀ = K Qᵀ, dPᵀ = V doutᵀ            (scores, keys as rows)
//   Pᵀ, dSᵀ per element                 (pairGradient, P from lse)
//   dV += Pᵀ dout, dK += dSᵀ Q           (Pᵀ, dSᵀ repacked as A fragments)
//   dq: dSᵀ to shared, then per warp 16 query rows of dS K (dS read back
//       transposed by ldmatrix), added atomically into the f32 accumulator
//
// attention_grad_q: a block of query rows, a warp per 16, dQ in registers:
//   S = Q Kᵀ, dP = dout Vᵀ, dS per element, dQ += dS K.
//
// Each tile is staged with cp.async (element copies where strides do not
// allow it) between two block barriers; the pieces are those of the
// forward kernel (MmaFragments.h, TileStager) and the per-element gradient
// of the host and scalar kernels (GradBlock.h).
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/NVGPU/MmaAttentionGrad.h"

#include "compiler/Codegen/Common/GradBlock.h"
#include "compiler/Codegen/Common/TileClassifier.h"
#include "compiler/Codegen/NVGPU/MmaFragments.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <limits>

using namespace mlir;
using attnc::AFragment;
using P = arith::CmpIPredicate;

namespace {

class MmaGradKernel : attnc::KernelEmitter {
public:
  MmaGradKernel(OpBuilder &b, Location loc,
                attn::AttentionScoringOpInterface op, Region &scoreGrad,
                const attnc::KernelBuffers &x,
                const attnc::MmaGradLayout &layout, Value shared,
                Value threadId)
      : KernelEmitter(b, loc), op(op), scoreGrad(scoreGrad), x(x),
        layout(layout), shared(shared), threadId(threadId),
        element(op.getQ().getType().getElementType()),
        sync(b, loc, element),
        stager(b, loc, threadId, attnc::mmaGradThreads(op)) {
    blockM = op.getTiles()->getBlockM();
    blockN = op.getTiles()->getBlockN();
    headDim = op.getQ().getType().getDimSize(3);
    headDimV = op.getV().getType().getDimSize(3);
    threads = attnc::mmaGradThreads(op);
  }

  void keyBlock(ValueRange ids, Value dk, Value dv, Value dqAccum);
  void queryBlock(ValueRange ids, Value dq);

private:
  Value operand(int64_t i) { return x.operands[i]; }
  Value tile(int64_t offset, const attnc::MmaTileLayout &tileLayout) {
    return stager.sharedTile(shared, index(offset), tileLayout, element);
  }
  Value f32Array(int64_t offset, int64_t n);
  Value valid(int64_t tile, Value extent, Value first) {
    return arith::MinUIOp::create(b, loc, index(tile),
                                  arith::SubIOp::create(b, loc, extent, first));
  }
  Value last(Value first, Value count) {
    return arith::SubIOp::create(b, loc, add(first, count), index(1));
  }
  Value less(Value a, Value c) {
    return arith::CmpIOp::create(b, loc, P::ult, a, c);
  }
  Value both(Value a, Value c) { return arith::AndIOp::create(b, loc, a, c); }
  /// for iv in [lb, ub) step: state = body(iv, state).
  template <typename Fn>
  SmallVector<Value> carry(Value lb, Value ub, Value step, ValueRange init,
                           Fn body) {
    auto forOp = scf::ForOp::create(
        b, loc, lb, ub, step, init,
        [&](OpBuilder &nested, Location, Value iv, ValueRange state) {
          inside(nested,
                 [&] { scf::YieldOp::create(b, loc, body(iv, state)); });
        });
    return SmallVector<Value>(forOp.getResults());
  }
  void waitForCopies() {
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
    NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
    gpu::BarrierOp::create(b, loc);
  }

  struct Pairs {
    SmallVector<Value> p, ds; // 4 per fragment, fragment-major
  };
  /// The gradient of every element of fragments `s` (raw dots) and `dp`;
  /// `at(j, r)` gives the element's (indices, in bounds, lse, delta).
  struct Element {
    SmallVector<Value, 4> indices;
    Value inBounds, lse, delta;
  };
  template <typename Fn>
  Pairs pairs(ArrayRef<SmallVector<Value>> s, ArrayRef<SmallVector<Value>> dp,
              Value mayBlock, Fn at);
  SmallVector<Value> allowedFlags(ArrayRef<Element> elements, Value mayBlock);
  /// Stores the warp's fragment accumulator rows (rows `row(h)`, valid
  /// when `valid(h)`) into out[batch, head, first + row, :].
  void storeRows(ArrayRef<Value> acc, int64_t width, Value out, Value batch,
                 Value head, Value first, Value rows);

  SmallVector<Value> keyTileStep(ValueRange state, Value batch, Value head,
                                 Value q0, Value k0, Value cols,
                                 Value dqAccum);
  void addQueryRows(ArrayRef<Value> dsFlat, Value batch, Value head, Value q0,
                    Value rows, Value dqAccum);
  SmallVector<Value> queryTileStep(ValueRange state, Value batch, Value head,
                                   Value kvHead, Value q0, Value rows,
                                   Value k0);

  attn::AttentionScoringOpInterface op;
  Region &scoreGrad;
  const attnc::KernelBuffers &x;
  const attnc::MmaGradLayout &layout;
  Value shared, threadId;
  Type element;
  attnc::SyncMma sync;
  attnc::TileStager stager;
  attnc::LaneGeometry lanes;
  int64_t blockM, blockN, headDim, headDimV, threads;
  // The thread's two fragment rows within the tile, its first column.
  Value localRow[2], columnBase;
  Value qTile, doutTile, kTile, vTile, dsTile, lseArray, deltaArray;
  attnc::GlobalSource qSource, doutSource, kSource, vSource;
};

Value MmaGradKernel::f32Array(int64_t offset, int64_t n) {
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto bytesType = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                   nullptr, workgroup);
  Value bytes = gpu::DynamicSharedMemoryOp::create(b, loc, bytesType);
  auto type = MemRefType::get({n}, b.getF32Type(), nullptr, workgroup);
  return memref::ViewOp::create(b, loc, type, bytes, index(offset),
                                ValueRange{});
}

SmallVector<Value> MmaGradKernel::allowedFlags(ArrayRef<Element> elements,
                                               Value mayBlock) {
  SmallVector<Value> inBounds;
  for (const Element &e : elements)
    inBounds.push_back(e.inBounds);
  if (!attnc::hasMask(op))
    return inBounds;
  SmallVector<Type> types(elements.size(), b.getI1Type());
  return llvm::to_vector(ifElse(
      mayBlock, types,
      [&] {
        SmallVector<Value> flags;
        for (const Element &e : elements)
          flags.push_back(both(
              e.inBounds,
              attnc::emitElementMask(b, loc, op, e.indices[0], e.indices[1],
                                     e.indices[2], e.indices[3])));
        return flags;
      },
      [&] { return inBounds; }));
}

template <typename Fn>
MmaGradKernel::Pairs MmaGradKernel::pairs(ArrayRef<SmallVector<Value>> s,
                                          ArrayRef<SmallVector<Value>> dp,
                                          Value mayBlock, Fn at) {
  SmallVector<Element> elements;
  for (int64_t j = 0; j < static_cast<int64_t>(s.size()); ++j)
    for (int64_t r = 0; r < 4; ++r)
      elements.push_back(at(j, r));
  SmallVector<Value> allowed = allowedFlags(elements, mayBlock);
  Pairs result;
  for (auto [i, e] : llvm::enumerate(elements)) {
    attnc::PairGradient g = attnc::pairGradient(
        b, loc, op, scoreGrad, s[i / 4][i % 4], dp[i / 4][i % 4], e.lse,
        e.delta, e.indices, allowed[i]);
    result.p.push_back(g.p);
    result.ds.push_back(g.dsRaw);
  }
  return result;
}

void MmaGradKernel::storeRows(ArrayRef<Value> acc, int64_t width, Value out,
                              Value batch, Value head, Value first,
                              Value rows) {
  Type outType = cast<MemRefType>(out.getType()).getElementType();
  for (int64_t h = 0; h < 2; ++h)
    ifThen(less(localRow[h], rows), [&] {
      for (int64_t n = 0; n < width / 8; ++n)
        for (int64_t c = 0; c < 2; ++c) {
          Value value = acc[n * 4 + 2 * h + c];
          if (outType != value.getType())
            value = arith::TruncFOp::create(b, loc, outType, value);
          memref::StoreOp::create(
              b, loc, value, out,
              ValueRange{batch, head, add(first, localRow[h]),
                         add(columnBase, index(n * 8 + c))});
        }
    });
}

//===----------------------------------------------------------------------===//
// attention_grad_kv
//===----------------------------------------------------------------------===//

/// dq += dS K of the tile: dSᵀ through shared memory, then warp w's 16
/// query rows, added atomically (other key blocks add to the same rows).
void MmaGradKernel::addQueryRows(ArrayRef<Value> dsFlat, Value batch,
                                 Value head, Value q0, Value rows,
                                 Value dqAccum) {
  for (auto [i, ds] : llvm::enumerate(dsFlat)) {
    int64_t j = i / 4, r = i % 4;
    memref::StoreOp::create(
        b, loc, arith::TruncFOp::create(b, loc, element, ds), dsTile,
        ValueRange{localRow[r / 2], add(columnBase, index(j * 8 + r % 2))});
  }
  gpu::BarrierOp::create(b, loc);
  SmallVector<Value> dq(headDim / 8 * 4, f32Const(0.0));
  sync.accumulate(sync.transposedA(dsTile, lanes.warpRow, blockN, lanes),
                  kTile, headDim, lanes, dq);
  for (int64_t h = 0; h < 2; ++h)
    ifThen(less(localRow[h], rows), [&] {
      for (int64_t n = 0; n < headDim / 8; ++n)
        for (int64_t c = 0; c < 2; ++c)
          memref::AtomicRMWOp::create(
              b, loc, arith::AtomicRMWKind::addf, dq[n * 4 + 2 * h + c],
              dqAccum,
              ValueRange{batch, head, add(q0, localRow[h]),
                         add(columnBase, index(n * 8 + c))});
    });
}

/// One query tile of head `head` against the block's keys; `state` holds
/// dK then dV.
SmallVector<Value> MmaGradKernel::keyTileStep(ValueRange state, Value batch,
                                              Value head, Value q0, Value k0,
                                              Value cols, Value dqAccum) {
  Value rows = valid(blockM, memref::DimOp::create(b, loc, operand(0), 2), q0);
  attnc::TileClass tileClass = attnc::classifyTile(
      b, loc, op, {batch, head, q0, last(q0, rows), k0, last(k0, cols)});
  return llvm::to_vector(ifElse(
      tileClass.mayAllow, ValueRange(state).getTypes(),
      [&] {
        gpu::BarrierOp::create(b, loc); // the previous tile is read
        stager.stage(qSource, qTile, batch, head, q0, rows);
        stager.stage(doutSource, doutTile, batch, head, q0, rows);
        loop(threadId, index(blockM), index(threads), [&](Value i) {
          Value inRows = less(i, rows);
          Value row = add(q0, i);
          ifThenElse(
              inRows,
              [&] {
                memref::StoreOp::create(
                    b, loc,
                    memref::LoadOp::create(b, loc, operand(3),
                                           ValueRange{batch, head, row}),
                    lseArray, i);
                memref::StoreOp::create(
                    b, loc,
                    memref::LoadOp::create(b, loc, operand(4),
                                           ValueRange{batch, head, row}),
                    deltaArray, i);
              },
              [&] {
                memref::StoreOp::create(
                    b, loc,
                    f32Const(-std::numeric_limits<double>::infinity()),
                    lseArray, i);
                memref::StoreOp::create(b, loc, f32Const(0.0), deltaArray, i);
              });
        });
        waitForCopies();
        auto sT = sync.scores(kTile, qTile, blockM, headDim, lanes);
        auto dpT = sync.scores(vTile, doutTile, blockM, headDimV, lanes);
        Pairs g = pairs(sT, dpT, tileClass.mayBlock, [&](int64_t j, int64_t r) {
          Value column = add(columnBase, index(j * 8 + r % 2));
          Value key = localRow[r / 2];
          return Element{{batch, head, add(q0, column), add(k0, key)},
                         both(less(key, cols), less(column, rows)),
                         memref::LoadOp::create(b, loc, lseArray, column),
                         memref::LoadOp::create(b, loc, deltaArray, column)};
        });
        SmallVector<Value> next(state.begin(), state.end());
        int64_t dkSize = headDim / 8 * 4;
        sync.accumulate(sync.probabilityFragments(g.ds), qTile, headDim, lanes,
                        MutableArrayRef<Value>(next).take_front(dkSize));
        sync.accumulate(sync.probabilityFragments(g.p), doutTile, headDimV,
                        lanes, MutableArrayRef<Value>(next).drop_front(dkSize));
        if (dqAccum)
          addQueryRows(g.ds, batch, head, q0, rows, dqAccum);
        return next;
      },
      [&] { return SmallVector<Value>(state.begin(), state.end()); }));
}

void MmaGradKernel::keyBlock(ValueRange ids, Value dk, Value dv,
                             Value dqAccum) {
  lanes = sync.laneGeometry(threadId);
  localRow[0] = add(lanes.warpRow, lanes.group);
  localRow[1] = add(localRow[0], index(8));
  columnBase = mul(lanes.inGroup, index(2));
  Value kvHead = ids[1], batch = ids[2];
  Value k0 = mul(ids[0], index(blockN));
  Value cols = valid(blockN, memref::DimOp::create(b, loc, operand(1), 2), k0);
  qSource = stager.makeSource(operand(0));
  kSource = stager.makeSource(operand(1));
  vSource = stager.makeSource(operand(2));
  doutSource = stager.makeSource(operand(5));
  std::tie(qTile, doutTile, kTile, vTile, dsTile) = std::make_tuple(
      tile(layout.qOffset, layout.q), tile(layout.doutOffset, layout.dout),
      tile(layout.kOffset, layout.k), tile(layout.vOffset, layout.v),
      tile(layout.dsTOffset, layout.dsT));
  lseArray = f32Array(layout.lseOffset, blockM);
  deltaArray = f32Array(layout.deltaOffset, blockM);
  stager.stage(kSource, kTile, batch, kvHead, k0, cols);
  stager.stage(vSource, vTile, batch, kvHead, k0, cols);
  NVVM::CpAsyncCommitGroupOp::create(b, loc);

  int64_t group = op.getGroupSize();
  attnc::KeyRange queries = attnc::queryLoopBounds(
      b, loc, op, k0, last(k0, cols),
      memref::DimOp::create(b, loc, operand(0), 2), blockM);
  SmallVector<Value> init((headDim + headDimV) / 8 * 4, f32Const(0.0));
  // The group's query heads all add into this block's dK and dV.
  SmallVector<Value> final = carry(
      index(0), index(group), index(1), init, [&](Value member, ValueRange s) {
        Value head = add(mul(kvHead, index(group)), member);
        return carry(queries.begin, queries.end, index(blockM), s,
                     [&](Value q0, ValueRange state) {
                       return keyTileStep(state, batch, head, q0, k0, cols,
                                          dqAccum);
                     });
      });
  // A block without query tiles never waited for its key copies.
  NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
  int64_t dkSize = headDim / 8 * 4;
  if (dk)
    storeRows(ArrayRef<Value>(final).take_front(dkSize), headDim, dk, batch,
              kvHead, k0, cols);
  if (dv)
    storeRows(ArrayRef<Value>(final).drop_front(dkSize), headDimV, dv, batch,
              kvHead, k0, cols);
}

//===----------------------------------------------------------------------===//
// attention_grad_q
//===----------------------------------------------------------------------===//

/// One key tile against the block's query rows; `state` holds dQ.
SmallVector<Value> MmaGradKernel::queryTileStep(ValueRange state, Value batch,
                                                Value head, Value kvHead,
                                                Value q0, Value rows,
                                                Value k0) {
  Value cols = valid(blockN, memref::DimOp::create(b, loc, operand(1), 2), k0);
  attnc::TileClass tileClass = attnc::classifyTile(
      b, loc, op, {batch, head, q0, last(q0, rows), k0, last(k0, cols)});
  return llvm::to_vector(ifElse(
      tileClass.mayAllow, ValueRange(state).getTypes(),
      [&] {
        gpu::BarrierOp::create(b, loc); // the previous tile is read
        stager.stage(kSource, kTile, batch, kvHead, k0, cols);
        stager.stage(vSource, vTile, batch, kvHead, k0, cols);
        waitForCopies();
        auto s = sync.scores(qTile, kTile, blockN, headDim, lanes);
        auto dp = sync.scores(doutTile, vTile, blockN, headDimV, lanes);
        Value rowLse[2], rowDelta[2];
        for (int64_t h = 0; h < 2; ++h) {
          rowLse[h] = memref::LoadOp::create(b, loc, lseArray, localRow[h]);
          rowDelta[h] = memref::LoadOp::create(b, loc, deltaArray, localRow[h]);
        }
        Pairs g = pairs(s, dp, tileClass.mayBlock, [&](int64_t j, int64_t r) {
          Value column = add(columnBase, index(j * 8 + r % 2));
          Value row = localRow[r / 2];
          return Element{{batch, head, add(q0, row), add(k0, column)},
                         both(less(column, cols), less(row, rows)),
                         rowLse[r / 2], rowDelta[r / 2]};
        });
        SmallVector<Value> next(state.begin(), state.end());
        sync.accumulate(sync.probabilityFragments(g.ds), kTile, headDim, lanes,
                        next);
        return next;
      },
      [&] { return SmallVector<Value>(state.begin(), state.end()); }));
}

void MmaGradKernel::queryBlock(ValueRange ids, Value dq) {
  lanes = sync.laneGeometry(threadId);
  localRow[0] = add(lanes.warpRow, lanes.group);
  localRow[1] = add(localRow[0], index(8));
  columnBase = mul(lanes.inGroup, index(2));
  Value head = ids[1], batch = ids[2];
  Value q0 = mul(ids[0], index(blockM));
  Value rows = valid(blockM, memref::DimOp::create(b, loc, operand(0), 2), q0);
  Value kvHead =
      arith::DivUIOp::create(b, loc, head, index(op.getGroupSize()));
  qSource = stager.makeSource(operand(0));
  kSource = stager.makeSource(operand(1));
  vSource = stager.makeSource(operand(2));
  doutSource = stager.makeSource(operand(5));
  std::tie(qTile, doutTile, kTile, vTile) = std::make_tuple(
      tile(layout.qOffset, layout.q), tile(layout.doutOffset, layout.dout),
      tile(layout.kOffset, layout.k), tile(layout.vOffset, layout.v));
  lseArray = f32Array(layout.lseOffset, blockM);
  deltaArray = f32Array(layout.deltaOffset, blockM);
  stager.stage(qSource, qTile, batch, head, q0, rows);
  stager.stage(doutSource, doutTile, batch, head, q0, rows);
  loop(threadId, rows, index(threads), [&](Value i) {
    for (auto [source, array] : {std::pair{operand(3), lseArray},
                                 std::pair{operand(4), deltaArray}})
      memref::StoreOp::create(
          b, loc,
          memref::LoadOp::create(b, loc, source,
                                 ValueRange{batch, head, add(q0, i)}),
          array, i);
  });
  waitForCopies();

  Value seqK = memref::DimOp::create(b, loc, operand(1), 2);
  attnc::KeyRange keys =
      attnc::keyLoopBounds(b, loc, op, q0, last(q0, rows), seqK, blockN);
  SmallVector<Value> init(headDim / 8 * 4, f32Const(0.0));
  SmallVector<Value> final =
      carry(keys.begin, keys.end, index(blockN), init,
            [&](Value k0, ValueRange state) {
              return queryTileStep(state, batch, head, kvHead, q0, rows, k0);
            });
  storeRows(final, headDim, dq, batch, head, q0, rows);
}

} // namespace

attnc::MmaGradLayout
attnc::getMmaGradLayout(attn::AttentionScoringOpInterface op) {
  int64_t blockM = op.getTiles()->getBlockM();
  int64_t blockN = op.getTiles()->getBlockN();
  int64_t headDim = op.getQ().getType().getDimSize(3);
  int64_t headDimV = op.getV().getType().getDimSize(3);
  MmaGradLayout layout;
  layout.q = {blockM, headDim, false};
  layout.dout = {blockM, headDimV, false};
  layout.k = {blockN, headDim, false};
  layout.v = {blockN, headDimV, false};
  layout.dsT = {blockN, blockM, false};
  int64_t offset = 0;
  // 128-byte aligned tiles: ldmatrix and cp.async need 16.
  auto place = [&](int64_t bytes) {
    int64_t at = offset;
    offset = (offset + bytes + 127) / 128 * 128;
    return at;
  };
  layout.qOffset = place(layout.q.bytes());
  layout.doutOffset = place(layout.dout.bytes());
  layout.kOffset = place(layout.k.bytes());
  layout.vOffset = place(layout.v.bytes());
  layout.dsTOffset = place(layout.dsT.bytes());
  layout.lseOffset = place(blockM * 4);
  layout.deltaOffset = place(blockM * 4);
  layout.bytes = offset;
  return layout;
}

int64_t attnc::mmaGradThreads(attn::AttentionScoringOpInterface op) {
  return op.getTiles()->getBlockM() / 16 * 32;
}

void attnc::emitMmaGradKV(OpBuilder &b, Location loc,
                          attn::AttentionGradKVOp op,
                          const KernelBuffers &buffers,
                          const MmaGradLayout &layout, Value shared,
                          Value threadId, ValueRange ids) {
  Value dqAccum = op.getDqAccum() ? buffers.results[2] : Value();
  MmaGradKernel(b, loc, op, op.getScoreGrad(), buffers, layout, shared,
                threadId)
      .keyBlock(ids, buffers.results[0], buffers.results[1], dqAccum);
}

void attnc::emitMmaGradQ(OpBuilder &b, Location loc, attn::AttentionGradQOp op,
                         const KernelBuffers &buffers,
                         const MmaGradLayout &layout, Value shared,
                         Value threadId, ValueRange ids) {
  MmaGradKernel(b, loc, op, op.getScoreGrad(), buffers, layout, shared,
                threadId)
      .queryBlock(ids, buffers.results[0]);
}
