//===- NormKernel.cpp - Row kernels of norms and row sums -----------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/Common/NormKernel.h"

#include "compiler/Codegen/Common/KernelEmitter.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;

namespace {

constexpr int64_t kWarp = 32;
/// Warps of a GPU block of sum_rows, over interleaved rows.
constexpr int64_t kSumWarps = 8;

int64_t blockSizeOf(Operation *op) {
  return op->getAttrOfType<IntegerAttr>("block_size").getInt();
}

class NormBlock : attnc::BlockEmitter {
public:
  NormBlock(OpBuilder &b, Location loc, Operation *op,
            const attnc::KernelBuffers &x, Value threadId, Value scratch)
      : BlockEmitter(b, loc, threadId, attnc::normKernelThreads(op)), op(op),
        x(x), perBlock(blockSizeOf(op)), scratch(scratch) {
    if (threadId) {
      lane = arith::RemUIOp::create(b, loc, threadId, index(kWarp));
      warp = arith::DivUIOp::create(b, loc, threadId, index(kWarp));
    } else {
      lane = index(0);
    }
  }

  void emit(Value blockId);

private:
  int64_t lanes() const { return threadId ? kWarp : 1; }
  int64_t width() const {
    return cast<MemRefType>(x.operands[0].getType()).getShape().back();
  }
  /// The rows of `buffer`: the product of its leading dims.
  Value rowCount(Value buffer) {
    Value rows = index(1);
    int64_t rank = cast<MemRefType>(buffer.getType()).getRank();
    for (int64_t d = 0; d + 1 < rank; ++d)
      rows = mul(rows, memref::DimOp::create(b, loc, buffer, d));
    return rows;
  }
  Value at(Value buffer, ArrayRef<Value> lead, Value last) {
    SmallVector<Value> indices(lead);
    indices.push_back(last);
    return toF32(load(buffer, indices));
  }
  void storeAt(Value v, Value buffer, ArrayRef<Value> lead, Value last) {
    SmallVector<Value> indices(lead);
    indices.push_back(last);
    store(fromF32(v, buffer), buffer, indices);
  }
  Value mulF(Value a, Value c) { return arith::MulFOp::create(b, loc, a, c); }

  /// body(item) for items [first, first + perBlock) below `count`: a loop
  /// on the host, a warp each on a GPU.
  template <typename Fn> void forBlockItems(Value blockId, Value count, Fn fn);
  bool centered() const {
    return isa<attn::LayerNormOp, attn::LayerNormGradOp>(op);
  }
  Value rowMean(Value in, ArrayRef<Value> lead);
  /// x at column d minus the row's mean, if it has one.
  Value centeredValue(Value in, ArrayRef<Value> lead, Value d, Value mean) {
    Value v = at(in, lead, d);
    return mean ? arith::SubFOp::create(b, loc, v, mean).getResult() : v;
  }
  void normRow(Value row);
  void gradPartial(Value partial);
  void sumColumn(Value column);
  void sumColumnsByWarps(Value first);

  Operation *op;
  const attnc::KernelBuffers &x;
  int64_t perBlock;
  Value scratch; // GPU row sums: [warps, 32] f32 in shared memory
  Value lane, warp;
};

template <typename Fn>
void NormBlock::forBlockItems(Value blockId, Value count, Fn fn) {
  Value first = mul(blockId, index(perBlock));
  Value items = validRows(perBlock, count, first);
  if (!threadId)
    return loopTo(items, [&](Value i) { fn(add(first, i)); });
  loop(warp, items, index(numThreads / kWarp),
       [&](Value i) { fn(add(first, i)); });
}

/// The mean of a row of `in` (LayerNorm's), or null for RMSNorm's.
Value NormBlock::rowMean(Value in, ArrayRef<Value> lead) {
  if (!centered())
    return Value();
  Value sum =
      laneSum(width(), lane, lanes(), [&](Value d) { return at(in, lead, d); });
  return arith::DivFOp::create(b, loc, sum, f32Const(width()));
}

/// With xc = x - mean (LayerNorm) or x (RMSNorm): rstd = 1 / sqrt(mean(xc^2)
/// + epsilon); out = xc * rstd * weight (+ bias).
void NormBlock::normRow(Value row) {
  Value in = x.operands[0], weight = x.operands[1];
  Value bias = x.operands.size() > 2 ? x.operands[2] : Value();
  SmallVector<Value> lead = rowIndex(in, row);
  Value mean = rowMean(in, lead);
  auto centeredAt = [&](Value d) { return centeredValue(in, lead, d, mean); };
  Value squares = laneSum(width(), lane, lanes(), [&](Value d) {
    Value v = centeredAt(d);
    return mulF(v, v);
  });
  Value variance = arith::DivFOp::create(b, loc, squares, f32Const(width()));
  Value shifted = arith::AddFOp::create(
      b, loc, variance,
      f32Const(op->getAttrOfType<FloatAttr>("epsilon").getValueAsDouble()));
  Value rstd = arith::DivFOp::create(b, loc, f32Const(1.0),
                                     math::SqrtOp::create(b, loc, shifted));
  if (Value out = x.results[1])
    storeFromLane0(rstd, out, lead, lane, lanes());
  if (Value out = x.results[0])
    forLaneColumns(width(), lane, lanes(), [&](Value d) {
      Value v = mulF(mulF(centeredAt(d), rstd), toF32(load(weight, d)));
      if (bias)
        v = arith::AddFOp::create(b, loc, v, toF32(load(bias, d)));
      storeAt(v, out, lead, d);
    });
}

/// The rows partial, partial + P, ...: dx of each, and the sum of their
/// dout * xhat into the partial row. xhat = (x - mean) * rstd, g = dout *
/// weight, dx = rstd * (g - mean(g) - xhat * mean(g * xhat)), where
/// LayerNorm's mean(g) term is dropped for RMSNorm (whose mean is 0).
void NormBlock::gradPartial(Value partial) {
  Value in = x.operands[0], weight = x.operands[1], rstdIn = x.operands[2],
        dout = x.operands[3], dx = x.results[0], sums = x.results[1];
  int64_t partials = cast<MemRefType>(sums.getType()).getDimSize(0);
  forLaneColumns(width(), lane, lanes(), [&](Value d) {
    store(f32Const(0), sums, {partial, d});
  });
  loop(partial, rowCount(in), index(partials), [&](Value row) {
    SmallVector<Value> lead = rowIndex(in, row);
    Value rstd = load(rstdIn, lead);
    Value mean = rowMean(in, lead);
    auto gAt = [&](Value d) {
      return mulF(at(dout, lead, d), toF32(load(weight, d)));
    };
    Value dot = laneSum(width(), lane, lanes(), [&](Value d) {
      return mulF(gAt(d), centeredValue(in, lead, d, mean));
    });
    // mean(g * xhat) = rstd * sum(g * xc) / D
    Value meanDot =
        arith::DivFOp::create(b, loc, mulF(dot, rstd), f32Const(width()));
    Value meanG = centered() ? arith::DivFOp::create(
                                   b, loc, laneSum(width(), lane, lanes(), gAt),
                                   f32Const(width()))
                             : Value();
    forLaneColumns(width(), lane, lanes(), [&](Value d) {
      Value dy = at(dout, lead, d);
      Value xhat = mulF(centeredValue(in, lead, d, mean), rstd);
      if (dx) {
        Value g = mulF(dy, toF32(load(weight, d)));
        if (meanG)
          g = arith::SubFOp::create(b, loc, g, meanG);
        Value diff = arith::SubFOp::create(b, loc, g, mulF(xhat, meanDot));
        storeAt(mulF(rstd, diff), dx, lead, d);
      }
      Value sum = arith::AddFOp::create(b, loc, load(sums, {partial, d}),
                                        mulF(dy, xhat));
      store(sum, sums, {partial, d});
    });
  });
}

/// out[column] = the sum of the column over the rows, in row order.
void NormBlock::sumColumn(Value column) {
  Value in = x.operands[0], out = x.results[0];
  Value total = reduce(
      rowCount(in), f32Const(0),
      [&](Value row) { return at(in, rowIndex(in, row), column); },
      [&](Value acc, Value v) -> Value {
        return arith::AddFOp::create(b, loc, acc, v);
      });
  store(fromF32(total, out), out, column);
}

void NormBlock::emit(Value blockId) {
  if (isa<attn::RmsNormOp, attn::LayerNormOp>(op))
    return forBlockItems(blockId, rowCount(x.operands[0]),
                         [&](Value row) { normRow(row); });
  if (isa<attn::RmsNormGradOp, attn::LayerNormGradOp>(op)) {
    Value partials = memref::DimOp::create(b, loc, x.results[1], 0);
    return forBlockItems(blockId, partials, [&](Value p) { gradPartial(p); });
  }
  Value first = mul(blockId, index(perBlock));
  if (threadId)
    return sumColumnsByWarps(first);
  // A thread per column.
  Value columns = validRows(perBlock, index(width()), first);
  forEachRow(columns, [&](Value i) { sumColumn(add(first, i)); });
}

/// On a GPU, 32 columns at a time, a lane each: the block's warps sum
/// interleaved rows (warp w rows w, w + warps, ...), coalesced along the
/// columns, and warp 0 adds their sums in warp order, so the result does
/// not depend on timing. A thread per column walking every row would leave
/// most of the chip idle (2048 columns are 8 blocks).
void NormBlock::sumColumnsByWarps(Value first) {
  Value in = x.operands[0], out = x.results[0];
  int64_t warps = numThreads / kWarp;
  Value rows = rowCount(in);
  loop(index(0), index(perBlock), index(kWarp), [&](Value group) {
    Value column = add(add(first, group), lane);
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         column, index(width()));
    Value sum = ifElse(
        inside, {f32},
        [&] {
          auto forOp = scf::ForOp::create(b, loc, warp, rows, index(warps),
                                          ValueRange{f32Const(0)});
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(forOp.getBody());
          Value v = at(in, rowIndex(in, forOp.getInductionVar()), column);
          scf::YieldOp::create(
              b, loc,
              ValueRange{
                  arith::AddFOp::create(b, loc, forOp.getRegionIterArgs()[0], v)
                      .getResult()});
          return SmallVector<Value>{forOp.getResult(0)};
        },
        [&] { return SmallVector<Value>{f32Const(0)}; })[0];
    store(sum, scratch, {warp, lane});
    barrier();
    Value lead =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, warp, index(0));
    ifThen(arith::AndIOp::create(b, loc, lead, inside), [&] {
      Value total = reduce(
          index(warps), f32Const(0),
          [&](Value w) {
            return load(scratch, {w, lane});
          },
          [&](Value acc, Value v) -> Value {
            return arith::AddFOp::create(b, loc, acc, v);
          });
      store(fromF32(total, out), out, column);
    });
    barrier();
  });
}

} // namespace

int64_t attnc::normKernelThreads(Operation *op) {
  return isa<attn::SumRowsOp>(op) ? kSumWarps * kWarp : blockSizeOf(op) * kWarp;
}

int64_t attnc::normKernelSharedBytes(Operation *op) {
  return isa<attn::SumRowsOp>(op) ? kSumWarps * kWarp * 4 : 0;
}

Value attnc::normKernelGrid(OpBuilder &b, Location loc, Operation *op,
                            const KernelBuffers &buffers) {
  Value count;
  if (isa<attn::RmsNormOp, attn::LayerNormOp>(op)) {
    Value in = buffers.operands[0];
    count = arith::ConstantIndexOp::create(b, loc, 1);
    int64_t rank = cast<MemRefType>(in.getType()).getRank();
    for (int64_t d = 0; d + 1 < rank; ++d)
      count = arith::MulIOp::create(b, loc, count,
                                    memref::DimOp::create(b, loc, in, d));
  } else if (isa<attn::RmsNormGradOp, attn::LayerNormGradOp>(op)) {
    count = memref::DimOp::create(b, loc, buffers.results[1], 0);
  } else {
    count = arith::ConstantIndexOp::create(
        b, loc, cast<MemRefType>(buffers.results[0].getType()).getDimSize(0));
  }
  return arith::CeilDivUIOp::create(
      b, loc, count, arith::ConstantIndexOp::create(b, loc, blockSizeOf(op)));
}

void attnc::emitNormKernelBlock(OpBuilder &b, Location loc, Operation *op,
                                const KernelBuffers &buffers, Value blockId,
                                Value threadId, Value scratch) {
  NormBlock(b, loc, op, buffers, threadId, scratch).emit(blockId);
}
