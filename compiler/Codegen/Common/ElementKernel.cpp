//===- ElementKernel.cpp - Kernels that work element by element -----------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/Common/ElementKernel.h"

#include "compiler/Codegen/Common/KernelEmitter.h"
#include "compiler/Codegen/Common/RowSwizzle.h"
#include "compiler/Codegen/Common/TileClassifier.h"
#include "compiler/Codegen/Common/VectorAccess.h"
#include "dialects/attn/AttnOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

using namespace mlir;
using attnc::DenseLayout;
using attnc::denseView;
using attnc::f32Constant;
using attnc::loadChunk;
using attnc::storeChunk;

namespace {

/// The extents of `buffer`'s dims.
SmallVector<Value> extentsOf(OpBuilder &b, Location loc, Value buffer) {
  SmallVector<Value> extents;
  for (int64_t d = 0; d < cast<MemRefType>(buffer.getType()).getRank(); ++d)
    extents.push_back(memref::DimOp::create(b, loc, buffer, d));
  return extents;
}

/// Row-major position `linear` as a multi-index over `extents`.
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ArrayRef<Value> extents) {
  SmallVector<Value> indices(extents.size());
  for (int64_t d = static_cast<int64_t>(extents.size()) - 1; d > 0; --d) {
    indices[d] = arith::RemUIOp::create(b, loc, linear, extents[d]);
    linear = arith::DivUIOp::create(b, loc, linear, extents[d]);
  }
  if (!extents.empty())
    indices[0] = linear;
  return indices;
}

/// `indices` + `delta` in the mixed radix of `extents`: each digit and
/// delta are below their extent, so one conditional subtraction carries.
SmallVector<Value> addMixedRadix(OpBuilder &b, Location loc, ValueRange indices,
                                 ArrayRef<Value> delta,
                                 ArrayRef<Value> extents) {
  SmallVector<Value> sum(indices.size());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value carry = zero;
  for (int64_t d = static_cast<int64_t>(indices.size()) - 1; d >= 0; --d) {
    Value digit = arith::AddIOp::create(
        b, loc, arith::AddIOp::create(b, loc, indices[d], delta[d]), carry);
    if (d == 0) {
      sum[d] = digit;
      break;
    }
    Value wraps = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                        digit, extents[d]);
    sum[d] = arith::SelectOp::create(
        b, loc, wraps, arith::SubIOp::create(b, loc, digit, extents[d]), digit);
    carry = arith::SelectOp::create(
        b, loc, wraps, arith::ConstantIndexOp::create(b, loc, 1), zero);
  }
  return sum;
}

/// `value` (f32) rounded to `buffer`'s element type.
Value fromF32(OpBuilder &b, Location loc, Value value, Value buffer) {
  Type element = cast<MemRefType>(buffer.getType()).getElementType();
  return element == value.getType()
             ? value
             : arith::TruncFOp::create(b, loc, element, value).getResult();
}

/// Whether `buffer`'s elements are whole bytes, so that a chunk of them can
/// be one vector access.
bool byteSized(Value buffer) {
  return cast<MemRefType>(buffer.getType()).getElementTypeBitWidth() % 8 == 0;
}

/// out[indices] = convert(in[indices] * scale), in's element found through
/// its row swizzle if it has one.
void emitCastElement(OpBuilder &b, Location loc, attn::CastOp op, Value in,
                     Value out, ValueRange indices) {
  Type f32 = b.getF32Type();
  SmallVector<Value> from(indices);
  if (std::optional<int64_t> swizzle = op.getInRowSwizzle())
    from.back() = attnc::swizzledColumn(b, loc, from[from.size() - 2],
                                        from.back(), *swizzle);
  Value value = memref::LoadOp::create(b, loc, in, from);
  if (value.getType() != f32)
    value = arith::ExtFOp::create(b, loc, f32, value);
  if (std::optional<APFloat> scale = op.getScale())
    value = arith::MulFOp::create(b, loc, value,
                                  f32Constant(b, loc, scale->convertToFloat()));
  memref::StoreOp::create(b, loc, fromF32(b, loc, value, out), out, indices);
}

/// `values` (a vector of f32) times the cast's scale, if it has one.
Value scaled(OpBuilder &b, Location loc, attn::CastOp op, Value values) {
  std::optional<APFloat> scale = op.getScale();
  if (!scale)
    return values;
  return arith::MulFOp::create(
      b, loc, values,
      vector::BroadcastOp::create(
          b, loc, values.getType(),
          f32Constant(b, loc, scale->convertToFloat())));
}

/// The cast of the `width` elements from row-major position `p`.
void emitCastChunk(OpBuilder &b, Location loc, attn::CastOp op, Value in,
                   Value out, Value p, int64_t width) {
  Value value =
      loadChunk(b, loc, denseView(b, loc, in, DenseLayout::Flat), p, width);
  storeChunk(b, loc, scaled(b, loc, op, value),
             denseView(b, loc, out, DenseLayout::Flat), p);
}

/// The cast of the kSwizzledChunkColumns elements from row-major position `p`
/// of rows in `op`'s in_row_swizzle order (RowSwizzle.h): pair i of the
/// chunk's first 8 columns and the pair 8 columns on share one 16-byte slot,
/// so 4 slot loads give both chunks of 8 of the output, each one store.
void emitUnswizzleChunk(OpBuilder &b, Location loc, attn::CastOp op, Value in,
                        Value out, Value p) {
  SmallVector<Value> indices = delinearize(b, loc, p, extentsOf(b, loc, out));
  Value row = indices[indices.size() - 2], column = indices.back();
  Value inView = denseView(b, loc, in, DenseLayout::Strided);
  SmallVector<Value> slots;
  for (int64_t pair = 0; pair < 4; ++pair) {
    SmallVector<Value> from(indices);
    from.back() = attnc::swizzledColumn(
        b, loc, row,
        arith::AddIOp::create(b, loc, column,
                              arith::ConstantIndexOp::create(b, loc, 2 * pair)),
        *op.getInRowSwizzle());
    slots.push_back(loadChunk(b, loc, inView, from, 4));
  }
  // Slots (a0 a1 b0 b1): the pairs a of columns [0, 8), then the pairs b.
  auto gather = [&](int64_t first) {
    Value low = vector::ShuffleOp::create(
        b, loc, slots[0], slots[1],
        ArrayRef<int64_t>{first, first + 1, 4 + first, 5 + first});
    Value high = vector::ShuffleOp::create(
        b, loc, slots[2], slots[3],
        ArrayRef<int64_t>{first, first + 1, 4 + first, 5 + first});
    Value eight = vector::ShuffleOp::create(
        b, loc, low, high, ArrayRef<int64_t>{0, 1, 2, 3, 4, 5, 6, 7});
    return scaled(b, loc, op, eight);
  };
  Value outView = denseView(b, loc, out, DenseLayout::Strided);
  storeChunk(b, loc, gather(0), outView, indices);
  indices.back() = arith::AddIOp::create(
      b, loc, column, arith::ConstantIndexOp::create(b, loc, 8));
  storeChunk(b, loc, gather(2), outView, indices);
}

/// Whether `buffer` is a broadcast input of an elementwise kernel over
/// `indices`: rank 0, read at no index.
bool isScalarBuffer(Value buffer) {
  return cast<MemRefType>(buffer.getType()).getRank() == 0;
}

/// The element of `input` at `indices` (its one element when it is a
/// broadcast scalar), widened to f32.
Value loadElementwiseInput(OpBuilder &b, Location loc, Value input,
                           ValueRange indices) {
  Value value = memref::LoadOp::create(
      b, loc, input, isScalarBuffer(input) ? ValueRange() : indices);
  if (value.getType() != b.getF32Type())
    value = arith::ExtFOp::create(b, loc, b.getF32Type(), value);
  return value;
}

/// The inputs of an elementwise op at `indices`, widened to f32.
SmallVector<Value> loadElementwiseInputs(OpBuilder &b, Location loc,
                                         ValueRange inputs,
                                         ValueRange indices) {
  return llvm::map_to_vector(inputs, [&](Value input) {
    return loadElementwiseInput(b, loc, input, indices);
  });
}

/// out_k[indices] = round(body_k(args)) for each kept result k (a null
/// buffer is a result nothing keeps).
void finishElementwise(OpBuilder &b, Location loc, attn::ElementwiseOp op,
                       ValueRange outs, ValueRange indices, ValueRange args) {
  SmallVector<Value> results = attnc::inlineRegionValues(b, op.getBody(), args);
  for (auto [result, out] : llvm::zip(results, outs))
    if (out)
      memref::StoreOp::create(b, loc, fromF32(b, loc, result, out), out,
                              indices);
}

/// The elementwise op on the `width` elements from row-major position `p`:
/// each input's chunk loaded at once, the body per element, each kept
/// result's chunk stored at once (after every load, as a result may
/// overwrite an operand's buffer).
void emitElementwiseChunk(OpBuilder &b, Location loc, attn::ElementwiseOp op,
                          ValueRange inputs, ValueRange outs, Value p,
                          int64_t width) {
  // A broadcast scalar is one f32 for every lane.
  SmallVector<Value> chunks;
  for (Value input : inputs)
    chunks.push_back(
        isScalarBuffer(input)
            ? loadElementwiseInput(b, loc, input, {})
            : loadChunk(b, loc, denseView(b, loc, input, DenseLayout::Flat), p,
                        width));
  SmallVector<SmallVector<Value>> results(outs.size());
  for (int64_t lane = 0; lane < width; ++lane) {
    SmallVector<Value> args;
    for (Value chunk : chunks)
      args.push_back(isa<VectorType>(chunk.getType())
                         ? vector::ExtractOp::create(b, loc, chunk, lane)
                         : chunk);
    for (auto [k, value] :
         llvm::enumerate(attnc::inlineRegionValues(b, op.getBody(), args)))
      results[k].push_back(value);
  }
  auto type = VectorType::get({width}, b.getF32Type());
  for (auto [out, values] : llvm::zip(outs, results))
    if (out)
      storeChunk(b, loc, vector::FromElementsOp::create(b, loc, type, values),
                 denseView(b, loc, out, DenseLayout::Flat), p);
}

/// The accumulators `init` folded over the key ranges s: each step is
/// term(s, accumulators).
template <typename Fn>
SmallVector<Value> overRanges(OpBuilder &b, Location loc, int64_t ranges,
                              ValueRange init, Fn term) {
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  auto loop = scf::ForOp::create(
      b, loc, index(0), index(ranges), index(1), init,
      [&](OpBuilder &nested, Location, Value s, ValueRange acc) {
        scf::YieldOp::create(nested, loc, term(s, acc));
      });
  return SmallVector<Value>(loop.getResults());
}

/// Element (b, h, i, d) of attn.attention_combine: with m the largest range
/// lse and w_s = exp(lse_s - m), out = sum_s w_s out_s / sum_s w_s and
/// lse = m + log(sum_s w_s); no allowed key in any range (m = -inf) gives
/// out = 0 and lse = -inf, and a NaN lse poisons both.
void emitCombineElement(OpBuilder &b, Location loc, int64_t ranges,
                        Value outPart, Value lsePart, Value out, Value lse,
                        ValueRange indices) {
  ValueRange row = indices.take_front(3);
  auto at = [&](Value s, ValueRange rest) {
    SmallVector<Value> position = {s};
    llvm::append_range(position, rest);
    return position;
  };
  auto rangeLse = [&](Value s) {
    return memref::LoadOp::create(b, loc, lsePart, at(s, row)).getResult();
  };
  constexpr double kInf = std::numeric_limits<double>::infinity();
  Value max = overRanges(
      b, loc, ranges, f32Constant(b, loc, -kInf), [&](Value s, ValueRange acc) {
        return SmallVector<Value>{
            arith::MaximumFOp::create(b, loc, acc[0], rangeLse(s))};
      })[0];
  Value anyKey = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, max,
                                       f32Constant(b, loc, -kInf));
  Value pivot =
      arith::SelectOp::create(b, loc, anyKey, max, f32Constant(b, loc, 0));
  // One pass: sum_s w_s and, when out is kept, sum_s w_s out_s.
  Value zero = f32Constant(b, loc, 0);
  SmallVector<Value> init = {zero};
  if (out)
    init.push_back(zero);
  SmallVector<Value> sums =
      overRanges(b, loc, ranges, init, [&](Value s, ValueRange acc) {
        Value w = math::ExpOp::create(
            b, loc, arith::SubFOp::create(b, loc, rangeLse(s), pivot));
        SmallVector<Value> next = {arith::AddFOp::create(b, loc, acc[0], w)};
        if (out)
          next.push_back(math::FmaOp::create(
              b, loc, w,
              memref::LoadOp::create(b, loc, outPart, at(s, indices)), acc[1]));
        return next;
      });
  Value sum = sums[0];
  if (out) {
    Value value = arith::SelectOp::create(
        b, loc, anyKey, arith::DivFOp::create(b, loc, sums[1], sum), zero);
    memref::StoreOp::create(b, loc, fromF32(b, loc, value, out), out, indices);
  }
  if (!lse)
    return;
  Value first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, indices[3],
                            arith::ConstantIndexOp::create(b, loc, 0));
  scf::IfOp::create(b, loc, first, [&](OpBuilder &nested, Location) {
    Value total = arith::AddFOp::create(nested, loc, pivot,
                                        math::LogOp::create(nested, loc, sum));
    Value value = arith::SelectOp::create(nested, loc, anyKey, total,
                                          f32Constant(nested, loc, -kInf));
    memref::StoreOp::create(nested, loc, value, lse, row);
    scf::YieldOp::create(nested, loc);
  });
}

/// The `width` elements of split_heads (`split`) or merge_heads from
/// `indices` of out along its last dim: (b, h, n, d) when splitting, (b, n,
/// h * D + d) when merging; `width` divides D and the rotary half, so the
/// elements share their head, rotary half and partner chunk. Reads are
/// straight-line: outside the rotary dims the partner and table reads fall
/// back to the elements themselves and column 0, and a select keeps them.
void emitHeadsChunk(OpBuilder &b, Location loc, bool split, Value in,
                    ValueRange tables, Value out, int64_t headDim,
                    ValueRange indices, int64_t width) {
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value batch = indices[0], head, pos, dim;
  if (split) {
    head = indices[1], pos = indices[2], dim = indices[3];
  } else {
    pos = indices[1];
    head = arith::DivUIOp::create(b, loc, indices[2], index(headDim));
    dim = arith::RemUIOp::create(b, loc, indices[2], index(headDim));
  }
  auto read = [&](Value d) {
    if (!split)
      return loadChunk(b, loc, in, {batch, head, pos, d}, width);
    Value column = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, head, index(headDim)), d);
    return loadChunk(b, loc, in, {batch, pos, column}, width);
  };
  Value self = read(dim), result = self;
  if (!tables.empty()) {
    int64_t half = cast<MemRefType>(tables[0].getType()).getDimSize(1);
    auto cmp = [&](arith::CmpIPredicate p, Value x, int64_t v) -> Value {
      return arith::CmpIOp::create(b, loc, p, x, index(v));
    };
    Value rotated = cmp(arith::CmpIPredicate::ult, dim, 2 * half);
    Value first = cmp(arith::CmpIPredicate::ult, dim, half);
    Value column = arith::SelectOp::create(
        b, loc, rotated, arith::RemUIOp::create(b, loc, dim, index(half)),
        index(0));
    Value partnerDim = arith::SelectOp::create(
        b, loc, rotated,
        arith::SelectOp::create(
            b, loc, first, arith::AddIOp::create(b, loc, dim, index(half)),
            arith::SubIOp::create(b, loc, dim, index(half))),
        dim);
    Value partner = read(partnerDim);
    Value cos = loadChunk(b, loc, tables[0], {pos, column}, width);
    Value sin = loadChunk(b, loc, tables[1], {pos, column}, width);
    // split: first half x1 cos - x2 sin, second x2 cos + x1 sin; merge
    // rotates by the transpose, so the signs swap.
    Value term = arith::MulFOp::create(b, loc, partner, sin);
    Value minus = arith::SubFOp::create(
        b, loc, arith::MulFOp::create(b, loc, self, cos), term);
    Value plus = arith::AddFOp::create(
        b, loc, arith::MulFOp::create(b, loc, self, cos), term);
    Value subtracts =
        split ? first
              : arith::XOrIOp::create(
                    b, loc, first, arith::ConstantIntOp::create(b, loc, 1, 1));
    result = arith::SelectOp::create(
        b, loc, rotated,
        arith::SelectOp::create(b, loc, subtracts, minus, plus), self);
  }
  storeChunk(b, loc, result, out, indices);
}

/// Whether `width` elements of a head of `headDim` can be one chunk of
/// split_heads or merge_heads with `tables` (a chunk must not straddle a
/// head or a rotary half).
bool headsChunkFits(int64_t headDim, ValueRange tables, int64_t width) {
  return headDim % width == 0 &&
         (tables.empty() ||
          cast<MemRefType>(tables[0].getType()).getDimSize(1) % width == 0);
}

template <typename Op>
attnc::ElementWork headsWork(Op op, const attnc::KernelBuffers &buffers,
                             bool split) {
  Value in = buffers.operands[0], out = buffers.results[0];
  SmallVector<Value> tables(llvm::drop_begin(buffers.operands));
  int64_t headDim = cast<RankedTensorType>(split ? op.getOut().getType()
                                                 : op->getOperand(0).getType())
                        .getDimSize(3);
  attnc::ElementWork work;
  work.shape = out;
  work.blockSize = *op.getBlockSize();
  work.element = [=](OpBuilder &b, Location loc, ValueRange indices) {
    emitHeadsChunk(b, loc, split, in, tables, out, headDim, indices, 1);
  };
  int64_t width = attnc::kElementVectorWidth;
  if (!headsChunkFits(headDim, tables, width) || !byteSized(in) ||
      !byteSized(out))
    return work;
  work.width = width;
  work.chunk = [=](OpBuilder &b, Location loc, Value p) {
    SmallVector<Value> indices = delinearize(b, loc, p, extentsOf(b, loc, out));
    auto view = [&](Value buffer) {
      return denseView(b, loc, buffer, DenseLayout::Strided);
    };
    SmallVector<Value> tableViews = llvm::map_to_vector(tables, view);
    emitHeadsChunk(b, loc, split, view(in), tableViews, view(out), headDim,
                   indices, width);
  };
  work.vectorBuffers = {in, out};
  llvm::append_range(work.vectorBuffers, tables);
  return work;
}

} // namespace

attnc::ElementWork attnc::splitHeadsWork(attn::SplitHeadsOp op,
                                         const KernelBuffers &buffers) {
  return headsWork(op, buffers, /*split=*/true);
}

attnc::ElementWork attnc::mergeHeadsWork(attn::MergeHeadsOp op,
                                         const KernelBuffers &buffers) {
  return headsWork(op, buffers, /*split=*/false);
}

attnc::ElementWork attnc::castWork(attn::CastOp op,
                                   const KernelBuffers &buffers) {
  Value in = buffers.operands[0], out = buffers.results[0];
  ElementWork work;
  work.shape = in;
  work.blockSize = *op.getBlockSize();
  work.element = [op, in, out](OpBuilder &b, Location loc, ValueRange indices) {
    emitCastElement(b, loc, op, in, out, indices);
  };
  if (!byteSized(in) || !byteSized(out))
    return work;
  if (std::optional<int64_t> swizzle = op.getInRowSwizzle()) {
    if (*swizzle % attnc::kSwizzledChunkColumns != 0 ||
        !cast<MemRefType>(in.getType()).getElementType().isF32())
      return work;
    work.width = attnc::kSwizzledChunkColumns;
    work.chunk = [op, in, out](OpBuilder &b, Location loc, Value p) {
      emitUnswizzleChunk(b, loc, op, in, out, p);
    };
    work.vectorBuffers = {in, out};
    // dq written into a heads view of the merged gradient's buffer.
    work.alignedRowsSuffice = true;
    return work;
  }
  work.width = kElementVectorWidth;
  work.chunk = [op, in, out, width = work.width](OpBuilder &b, Location loc,
                                                 Value p) {
    emitCastChunk(b, loc, op, in, out, p, width);
  };
  work.vectorBuffers = {in, out};
  return work;
}

attnc::ElementWork attnc::elementwiseWork(attn::ElementwiseOp op,
                                          const KernelBuffers &buffers) {
  SmallVector<Value> inputs = buffers.operands, outs = buffers.results;
  // The elements of a kept result (canonicalization leaves none unkept).
  ElementWork work;
  work.shape = *llvm::find_if(outs, [](Value out) { return out; });
  work.blockSize = *op.getBlockSize();
  work.load = [inputs](OpBuilder &b, Location loc, ValueRange indices) {
    return loadElementwiseInputs(b, loc, inputs, indices);
  };
  work.finish = [op, outs](OpBuilder &b, Location loc, ValueRange indices,
                           ValueRange args) {
    finishElementwise(b, loc, op, outs, indices, args);
  };
  work.element = [load = work.load, finish = work.finish](
                     OpBuilder &b, Location loc, ValueRange indices) {
    finish(b, loc, indices, load(b, loc, indices));
  };
  SmallVector<Value> kept(llvm::make_filter_range(
      outs, [](Value out) { return static_cast<bool>(out); }));
  llvm::append_range(work.vectorBuffers,
                     llvm::make_filter_range(inputs, [](Value input) {
                       return !isScalarBuffer(input);
                     }));
  llvm::append_range(work.vectorBuffers, kept);
  if (!llvm::all_of(work.vectorBuffers, byteSized))
    return work;
  work.width = kElementVectorWidth;
  work.chunk = [op, inputs, outs, width = work.width](OpBuilder &b,
                                                      Location loc, Value p) {
    emitElementwiseChunk(b, loc, op, inputs, outs, p, width);
  };
  return work;
}

attnc::ElementWork attnc::combineWork(attn::AttentionCombineOp op,
                                      const KernelBuffers &buffers) {
  Value outPart = buffers.operands[0], lsePart = buffers.operands[1];
  Value out = buffers.results[0], lse = buffers.results[1];
  int64_t ranges = op.getOutPart().getType().getDimSize(0);
  // The elements of out; when nothing keeps it, those of out_part, whose
  // ranges then all write the same lse.
  Value shape = out ? out : outPart;
  return {shape, static_cast<int64_t>(*op.getBlockSize()),
          [=](OpBuilder &b, Location loc, ValueRange indices) {
            emitCombineElement(b, loc, ranges, outPart, lsePart, out, lse,
                               indices.take_back(4));
          }};
}

attnc::ElementGrid attnc::elementGrid(OpBuilder &b, Location loc,
                                      const ElementWork &work) {
  ElementGrid grid;
  grid.count = arith::ConstantIndexOp::create(b, loc, 1);
  for (Value extent : extentsOf(b, loc, work.shape))
    grid.count = arith::MulIOp::create(b, loc, grid.count, extent);
  grid.blockSize = arith::ConstantIndexOp::create(b, loc, work.blockSize);
  grid.blocks = arith::CeilDivUIOp::create(b, loc, grid.count, grid.blockSize);
  return grid;
}

std::pair<Value, Value> attnc::elementBlockRange(OpBuilder &b, Location loc,
                                                 const ElementGrid &grid,
                                                 Value block) {
  Value first = arith::MulIOp::create(b, loc, block, grid.blockSize);
  Value end = arith::MinUIOp::create(
      b, loc, grid.count, arith::AddIOp::create(b, loc, first, grid.blockSize));
  return {first, end};
}

void attnc::emitElementLoop(OpBuilder &b, Location loc, const ElementWork &work,
                            Value begin, Value end, int64_t step) {
  SmallVector<Value> extents = extentsOf(b, loc, work.shape);
  Value stepValue = arith::ConstantIndexOp::create(b, loc, step);
  // The step as a multi-index; a step past the first dim leaves the
  // tensor, where the loop ends anyway.
  SmallVector<Value> delta = delinearize(b, loc, stepValue, extents);
  // The body builder yields for itself, also when a rank-0 shape leaves
  // the loop no multi-index to carry.
  scf::ForOp::create(
      b, loc, begin, end, stepValue, delinearize(b, loc, begin, extents),
      [&](OpBuilder &nested, Location loc, Value, ValueRange indices) {
        work.element(nested, loc, indices);
        scf::YieldOp::create(
            nested, loc, addMixedRadix(nested, loc, indices, delta, extents));
      });
}

void attnc::emitElementRun(OpBuilder &b, Location loc, const ElementWork &work,
                           Value begin, int64_t count, int64_t step) {
  SmallVector<Value> extents = extentsOf(b, loc, work.shape);
  SmallVector<Value> delta = delinearize(
      b, loc, arith::ConstantIndexOp::create(b, loc, step), extents);
  SmallVector<SmallVector<Value>> indices = {
      delinearize(b, loc, begin, extents)};
  while (static_cast<int64_t>(indices.size()) < count)
    indices.push_back(addMixedRadix(b, loc, indices.back(), delta, extents));
  SmallVector<SmallVector<Value>> loaded;
  for (ValueRange at : indices)
    loaded.push_back(work.load(b, loc, at));
  for (auto [at, values] : llvm::zip(indices, loaded))
    work.finish(b, loc, at, values);
}

Value attnc::vectorFormApplies(OpBuilder &b, Location loc,
                               const ElementWork &work) {
  Value applies = arith::ConstantIntOp::create(b, loc, 1, 1);
  for (Value buffer : work.vectorBuffers)
    applies = arith::AndIOp::create(b, loc, applies,
                                    work.alignedRowsSuffice
                                        ? hasAlignedRows(b, loc, buffer)
                                        : isDenseAndAligned(b, loc, buffer));
  return applies;
}

void attnc::emitElementChunks(OpBuilder &b, Location loc,
                              const ElementWork &work, Value begin, Value end) {
  // Chunks start at multiples of the width only in blocks that are.
  if (work.width == 1 || work.blockSize % work.width != 0)
    return emitElementLoop(b, loc, work, begin, end, 1);
  Value width = arith::ConstantIndexOp::create(b, loc, work.width);
  Value chunks = arith::DivUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, end, begin), width);
  Value chunked = arith::AddIOp::create(
      b, loc, begin, arith::MulIOp::create(b, loc, chunks, width));
  Value split = arith::SelectOp::create(b, loc, vectorFormApplies(b, loc, work),
                                        chunked, begin);
  scf::ForOp::create(b, loc, begin, split, width, ValueRange(),
                     [&](OpBuilder &nested, Location, Value p, ValueRange) {
                       work.chunk(nested, loc, p);
                       scf::YieldOp::create(nested, loc);
                     });
  emitElementLoop(b, loc, work, split, end, 1);
}

LogicalResult attnc::checkCastKernel(attn::CastOp op) {
  for (Type type : {op.getIn().getType().getElementType(),
                    op.getOut().getType().getElementType()})
    if (!type.isF32() && !type.isF16() && !type.isBF16())
      return op.emitOpError()
             << "code generation converts between f32, f16 and bf16; " << type
             << " is not supported yet";
  return success();
}
