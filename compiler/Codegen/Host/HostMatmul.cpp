//===- HostMatmul.cpp - attn.matmul as host loops -------------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Loop orders keep the innermost loop on contiguous memory of the usual
// dense layouts: a weight [K, N] is read along its rows (rank-1 updates of
// an accumulator row), a weight [N, K] along K (dot products), and a row
// contraction walks the shared rows outermost, updating the whole tile.
// A row of an activation is a multi-index, computed once per row.
//
// Where a and b are dense (checked per block: callers may pass strided
// tensors), the block runs on vectors of kLanes f32 instead, as register
// tiles whose loads are reused across a few rows and columns: dot products
// of a [N, K] weight along K in lanes (reduced at the end, then K's last
// partial chunk), and rank-1 updates of kLanes-column chunks for a [K, N]
// weight and the row contraction (columns past the last whole chunk take
// the scalar loops). A tile's rows and columns past the block's are
// clamped for loads and not stored.
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/Host/HostMatmul.h"

#include "compiler/Codegen/Common/KernelEmitter.h"
#include "compiler/Codegen/Common/VectorAccess.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace {

/// f32 lanes of a vector register of the host (AVX2, x86-64-v3).
constexpr int64_t kLanes = 8;
/// Register tiles: rows by columns of dot products, rows by kLanes-column
/// chunks of rank-1 updates; each fits the 16 vector registers with its
/// operands.
constexpr int64_t kDotRows = 3, kDotCols = 3;
constexpr int64_t kUpdateRows = 6, kUpdateChunks = 2;
/// Rows of b (K, or the shared rows) a pass of rank-1 updates takes: b's
/// rows are far apart in memory, and this many stay in L1 and the TLB for
/// all the block's tiles.
constexpr int64_t kUpdateDepth = 128;

class MatmulBlock : attnc::BlockEmitter {
public:
  MatmulBlock(OpBuilder &b, Location loc, attn::MatmulOp op,
              const attnc::KernelBuffers &buffers)
      : BlockEmitter(b, loc, /*threadId=*/Value(), 1), op(op),
        a(buffers.operands[0]), bMat(buffers.operands[1]),
        out(buffers.results[0]) {
    // The operands after a and b: the bias, then the addend.
    if (op.getBias())
      bias = buffers.operands[2];
    if (op.getAddend())
      addend = buffers.operands.back();
    ArrayRef<int64_t> tile = *op.getTile();
    tileRows = tile[0];
    tileCols = tile[1];
  }

  void emit(ValueRange ids);

private:
  Value dim(Value buffer, int64_t d) {
    return memref::DimOp::create(b, loc, buffer, d);
  }
  int64_t rank(Value buffer) {
    return cast<MemRefType>(buffer.getType()).getRank();
  }
  Value loadAt(Value buffer, ArrayRef<Value> lead, Value last) {
    SmallVector<Value> indices(lead);
    indices.push_back(last);
    return toF32(load(buffer, indices));
  }
  /// Stores a sum of products, plus the bias and the addend if there are,
  /// through the activation if there is one.
  void storeAt(Value value, ArrayRef<Value> lead, Value last) {
    if (bias)
      value = arith::AddFOp::create(b, loc, value, toF32(load(bias, last)));
    if (std::optional<StringRef> activation = op.getActivation())
      value = attn::buildMatmulActivation(b, loc, *activation, value);
    SmallVector<Value> indices(lead);
    indices.push_back(last);
    if (addend)
      value = arith::AddFOp::create(b, loc, value, loadAt(addend, lead, last));
    store(fromF32(value, out), out, indices);
  }
  void emitRows(Value row0, Value rows, Value col0, Value cols);
  void emitRowContraction(Value row0, Value rows, Value col0, Value cols);
  void emitScalar(Value row0, Value rows, Value col0, Value cols);
  void emitVector(Value row0, Value rows, Value col0, Value cols);
  void emitDotTile(Value a2, Value b2, Value i0, Value rowEnd, Value j0,
                   Value colEnd);
  void emitUpdates(Value a2, Value b2, Value row0, Value rowEnd, Value col0,
                   Value cols);
  void emitUpdateTile(Value a2, Value b2, Value acc, Value row0, Value i0,
                      Value rowEnd, Value col0, Value j0, Value l0, Value l1);

  /// `i` if below `end`, else end - 1: a tile's rows past the block's load
  /// the block's last one.
  Value clamp(Value i, Value end) {
    return arith::MinUIOp::create(b, loc, i, sub(end, index(1)));
  }
  Value below(Value x, Value end) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, end);
  }
  /// kLanes elements of `matrix` from (row, col) along its row, in f32.
  Value loadLanes(Value matrix, Value row, Value col) {
    Type element = cast<MemRefType>(matrix.getType()).getElementType();
    Value chunk =
        vector::LoadOp::create(b, loc, VectorType::get({kLanes}, element),
                               matrix, ValueRange{row, col});
    if (element == f32)
      return chunk;
    return arith::ExtFOp::create(b, loc, VectorType::get({kLanes}, f32), chunk);
  }
  Value zeros() {
    auto type = VectorType::get({kLanes}, f32);
    return arith::ConstantOp::create(b, loc,
                                     DenseElementsAttr::get(type, 0.0f));
  }
  /// The vector accumulators `init` over k in [lb, ub) by `step`:
  /// next(k, accs) gives the next ones.
  template <typename Fn>
  SmallVector<Value> accumulate(Value lb, Value ub, int64_t step,
                                ValueRange init, Fn next) {
    auto forOp = scf::ForOp::create(
        b, loc, lb, ub, index(step), init,
        [&](OpBuilder &nested, Location, Value k, ValueRange accs) {
          inside(nested, [&] { scf::YieldOp::create(b, loc, next(k, accs)); });
        });
    return SmallVector<Value>(forOp.getResults());
  }

  attn::MatmulOp op;
  Value a, bMat, out, bias, addend;
  int64_t tileRows, tileCols;
};

/// out = a B for a block of a's rows: per row, B's columns as a rank-1
/// update of an accumulator row ([K, N]) or as dot products ([N, K]).
void MatmulBlock::emitRows(Value row0, Value rows, Value col0, Value cols) {
  Value k = dim(a, rank(a) - 1);
  Value acc =
      op.getTransposeB()
          ? Value()
          : memref::AllocOp::create(b, loc, MemRefType::get({tileCols}, f32))
                .getResult();
  loopTo(rows, [&](Value i) {
    SmallVector<Value> lead = rowIndex(a, add(row0, i));
    if (op.getTransposeB()) {
      loopTo(cols, [&](Value j) {
        Value col = add(col0, j);
        Value sum = reduce(
            k, f32Const(0),
            [&](Value l) -> Value {
              Value x = loadAt(a, lead, l);
              return arith::MulFOp::create(b, loc, x,
                                           toF32(load(bMat, {col, l})));
            },
            [&](Value s, Value t) -> Value {
              return arith::AddFOp::create(b, loc, s, t);
            });
        storeAt(sum, lead, col);
      });
      return;
    }
    loopTo(cols, [&](Value j) { store(f32Const(0), acc, j); });
    loopTo(k, [&](Value l) {
      Value x = loadAt(a, lead, l);
      loopTo(cols, [&](Value j) {
        Value y = toF32(load(bMat, {l, add(col0, j)}));
        Value term = arith::MulFOp::create(b, loc, x, y);
        store(arith::AddFOp::create(b, loc, load(acc, j), term), acc, j);
      });
    });
    loopTo(cols, [&](Value j) { storeAt(load(acc, j), lead, add(col0, j)); });
  });
  if (acc)
    memref::DeallocOp::create(b, loc, acc);
}

/// out[m, n] = sum_r a[r, m] b[r, n]: the shared rows outermost, each a
/// rank-1 update of the whole accumulator tile.
void MatmulBlock::emitRowContraction(Value row0, Value rows, Value col0,
                                     Value cols) {
  Value acc = memref::AllocOp::create(
      b, loc, MemRefType::get({tileRows, tileCols}, f32));
  forEachElement(index(tileRows), tileCols, [&](Value i, Value j) {
    store(f32Const(0), acc, {i, j});
  });
  Value shared = index(1);
  for (int64_t d = 0; d + 1 < rank(a); ++d)
    shared = mul(shared, dim(a, d));
  loopTo(shared, [&](Value r) {
    SmallVector<Value> lead = rowIndex(a, r);
    loopTo(rows, [&](Value i) {
      Value x = loadAt(a, lead, add(row0, i));
      loopTo(cols, [&](Value j) {
        Value y = loadAt(bMat, lead, add(col0, j));
        Value term = arith::MulFOp::create(b, loc, x, y);
        store(arith::AddFOp::create(b, loc, load(acc, {i, j}), term), acc,
              {i, j});
      });
    });
  });
  loopTo(rows, [&](Value i) {
    loopTo(cols, [&](Value j) {
      storeAt(load(acc, {i, j}), {add(row0, i)}, add(col0, j));
    });
  });
  memref::DeallocOp::create(b, loc, acc);
}

/// out[i, j] = a_i . b_j for kDotRows rows from i0 and kDotCols columns
/// from j0 (absolute indices), b being [N, K].
void MatmulBlock::emitDotTile(Value a2, Value b2, Value i0, Value rowEnd,
                              Value j0, Value colEnd) {
  Value k = dim(a2, 1);
  Value whole = mul(divUI(k, index(kLanes)), index(kLanes));
  SmallVector<Value> rowAt, colAt;
  for (int64_t r = 0; r < kDotRows; ++r)
    rowAt.push_back(clamp(add(i0, index(r)), rowEnd));
  for (int64_t c = 0; c < kDotCols; ++c)
    colAt.push_back(clamp(add(j0, index(c)), colEnd));
  SmallVector<Value> init(kDotRows * kDotCols, zeros());
  SmallVector<Value> accs =
      accumulate(index(0), whole, kLanes, init, [&](Value l, ValueRange accs) {
        SmallVector<Value> xs, ys, next;
        for (Value row : rowAt)
          xs.push_back(loadLanes(a2, row, l));
        for (Value col : colAt)
          ys.push_back(loadLanes(b2, col, l));
        for (int64_t r = 0; r < kDotRows; ++r)
          for (int64_t c = 0; c < kDotCols; ++c)
            next.push_back(vector::FMAOp::create(b, loc, xs[r], ys[c],
                                                 accs[r * kDotCols + c]));
        return next;
      });
  for (int64_t r = 0; r < kDotRows; ++r)
    for (int64_t c = 0; c < kDotCols; ++c) {
      Value lanes = vector::ReductionOp::create(
          b, loc, vector::CombiningKind::ADD, accs[r * kDotCols + c]);
      Value sum = reduce(
          sub(k, whole), lanes,
          [&](Value t) -> Value {
            Value l = add(whole, t);
            return arith::MulFOp::create(b, loc, toF32(load(a2, {rowAt[r], l})),
                                         toF32(load(b2, {colAt[c], l})));
          },
          [&](Value s, Value t) -> Value {
            return arith::AddFOp::create(b, loc, s, t);
          });
      Value row = add(i0, index(r)), col = add(j0, index(c));
      ifThen(
          arith::AndIOp::create(b, loc, below(row, rowEnd), below(col, colEnd)),
          [&] { storeAt(sum, rowIndex(out, row), col); });
    }
}

/// acc's rows i0 - row0 on, kUpdateRows of them, and kUpdateChunks chunks
/// of kLanes columns from j0 - col0, updated by b's rows [l0, l1): rank-1
/// updates over K for b [K, N], over the shared rows for the row
/// contraction (a read down its columns).
void MatmulBlock::emitUpdateTile(Value a2, Value b2, Value acc, Value row0,
                                 Value i0, Value rowEnd, Value col0, Value j0,
                                 Value l0, Value l1) {
  bool contraction = op.getTransposeA();
  auto type = VectorType::get({kLanes}, f32);
  SmallVector<Value> rowAt, init;
  SmallVector<std::pair<Value, Value>> accAt;
  for (int64_t r = 0; r < kUpdateRows; ++r) {
    rowAt.push_back(clamp(add(i0, index(r)), rowEnd));
    for (int64_t c = 0; c < kUpdateChunks; ++c) {
      accAt.push_back({sub(add(i0, index(r)), row0),
                       sub(add(j0, index(c * kLanes)), col0)});
      init.push_back(vector::LoadOp::create(
          b, loc, type, acc,
          ValueRange{accAt.back().first, accAt.back().second}));
    }
  }
  SmallVector<Value> accs =
      accumulate(l0, l1, 1, init, [&](Value l, ValueRange accs) {
        SmallVector<Value> ys, next;
        for (int64_t c = 0; c < kUpdateChunks; ++c)
          ys.push_back(loadLanes(b2, l, add(j0, index(c * kLanes))));
        for (int64_t r = 0; r < kUpdateRows; ++r) {
          Value x = toF32(contraction ? load(a2, {l, rowAt[r]})
                                      : load(a2, {rowAt[r], l}));
          Value xs = vector::BroadcastOp::create(b, loc, type, x);
          for (int64_t c = 0; c < kUpdateChunks; ++c)
            next.push_back(vector::FMAOp::create(b, loc, xs, ys[c],
                                                 accs[r * kUpdateChunks + c]));
        }
        return next;
      });
  for (auto [value, at] : llvm::zip(accs, accAt))
    vector::StoreOp::create(b, loc, value, acc,
                            ValueRange{at.first, at.second});
}

/// The whole kLanes * kUpdateChunks column chunks of the block (`cols` of
/// them from col0) by rank-1 updates, kUpdateDepth rows of b at a time
/// into an accumulator tile with room for a tile's rows past the block's.
void MatmulBlock::emitUpdates(Value a2, Value b2, Value row0, Value rowEnd,
                              Value col0, Value cols) {
  int64_t chunk = kLanes * kUpdateChunks;
  int64_t accRows = llvm::divideCeil(tileRows, kUpdateRows) * kUpdateRows;
  Value acc = memref::AllocOp::create(
      b, loc, MemRefType::get({accRows, tileCols}, f32));
  Value zero = zeros();
  loopTo(index(accRows), [&](Value i) {
    loop(index(0), cols, index(kLanes), [&](Value j) {
      vector::StoreOp::create(b, loc, zero, acc, ValueRange{i, j});
    });
  });
  Value depth = dim(b2, 0), colEnd = add(col0, cols);
  loop(index(0), depth, index(kUpdateDepth), [&](Value l0) {
    Value l1 =
        arith::MinUIOp::create(b, loc, add(l0, index(kUpdateDepth)), depth);
    loop(row0, rowEnd, index(kUpdateRows), [&](Value i) {
      loop(col0, colEnd, index(chunk), [&](Value j) {
        emitUpdateTile(a2, b2, acc, row0, i, rowEnd, col0, j, l0, l1);
      });
    });
  });
  bool contraction = op.getTransposeA();
  loop(row0, rowEnd, index(1), [&](Value i) {
    SmallVector<Value> lead =
        contraction ? SmallVector<Value>{i} : rowIndex(out, i);
    loop(col0, colEnd, index(1), [&](Value j) {
      storeAt(load(acc, {sub(i, row0), sub(j, col0)}), lead, j);
    });
  });
  memref::DeallocOp::create(b, loc, acc);
}

/// The block on vector register tiles, a and b being dense.
void MatmulBlock::emitVector(Value row0, Value rows, Value col0, Value cols) {
  Value a2 = attnc::denseView(b, loc, a, attnc::DenseLayout::Matrix);
  Value b2 = attnc::denseView(b, loc, bMat, attnc::DenseLayout::Matrix);
  Value rowEnd = add(row0, rows), colEnd = add(col0, cols);
  if (op.getTransposeB()) {
    loop(row0, rowEnd, index(kDotRows), [&](Value i) {
      loop(col0, colEnd, index(kDotCols),
           [&](Value j) { emitDotTile(a2, b2, i, rowEnd, j, colEnd); });
    });
    return;
  }
  int64_t chunk = kLanes * kUpdateChunks;
  Value whole = mul(divUI(cols, index(chunk)), index(chunk));
  emitUpdates(a2, b2, row0, rowEnd, col0, whole);
  emitScalar(row0, rows, add(col0, whole), sub(cols, whole));
}

void MatmulBlock::emitScalar(Value row0, Value rows, Value col0, Value cols) {
  if (op.getTransposeA())
    emitRowContraction(row0, rows, col0, cols);
  else
    emitRows(row0, rows, col0, cols);
}

void MatmulBlock::emit(ValueRange ids) {
  int64_t outRank = rank(out);
  Value m = index(1);
  for (int64_t d = 0; d + 1 < outRank; ++d)
    m = mul(m, dim(out, d));
  Value n = dim(out, outRank - 1);
  Value col0 = mul(ids[0], index(tileCols));
  Value row0 = mul(ids[1], index(tileRows));
  Value cols = validRows(tileCols, n, col0);
  Value rows = validRows(tileRows, m, row0);
  Value dense = arith::AndIOp::create(b, loc, attnc::isDense(b, loc, a),
                                      attnc::isDense(b, loc, bMat));
  ifThenElse(
      dense, [&] { emitVector(row0, rows, col0, cols); },
      [&] { emitScalar(row0, rows, col0, cols); });
}

} // namespace

SmallVector<Value> attnc::hostMatmulGrid(OpBuilder &b, Location loc,
                                         attn::MatmulOp op,
                                         const KernelBuffers &buffers) {
  Value out = buffers.results[0];
  int64_t rank = cast<MemRefType>(out.getType()).getRank();
  Value rows = arith::ConstantIndexOp::create(b, loc, 1);
  for (int64_t d = 0; d + 1 < rank; ++d)
    rows = arith::MulIOp::create(b, loc, rows,
                                 memref::DimOp::create(b, loc, out, d));
  Value cols = memref::DimOp::create(b, loc, out, rank - 1);
  ArrayRef<int64_t> tile = *op.getTile();
  auto blocks = [&](Value extent, int64_t size) -> Value {
    return arith::CeilDivUIOp::create(
        b, loc, extent, arith::ConstantIndexOp::create(b, loc, size));
  };
  return {blocks(cols, tile[1]), blocks(rows, tile[0])};
}

void attnc::emitHostMatmulBlock(OpBuilder &b, Location loc, attn::MatmulOp op,
                                const KernelBuffers &buffers, ValueRange ids) {
  MatmulBlock(b, loc, op, buffers).emit(ids);
}
