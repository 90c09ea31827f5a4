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
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/Host/HostMatmul.h"

#include "compiler/Codegen/Common/KernelEmitter.h"

using namespace mlir;

namespace {

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
  if (op.getTransposeA())
    emitRowContraction(row0, rows, col0, cols);
  else
    emitRows(row0, rows, col0, cols);
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
