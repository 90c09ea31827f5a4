//===- CastKernel.cpp - The element work of attn.cast kernels -------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/Common/CastKernel.h"

#include "dialects/attn/AttnOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

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
SmallVector<Value> addMixedRadix(OpBuilder &b, Location loc,
                                 ValueRange indices, ArrayRef<Value> delta,
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
        b, loc, wraps, arith::SubIOp::create(b, loc, digit, extents[d]),
        digit);
    carry = arith::SelectOp::create(
        b, loc, wraps, arith::ConstantIndexOp::create(b, loc, 1), zero);
  }
  return sum;
}

/// out[indices] = convert(in[indices] * scale).
void emitCastElement(OpBuilder &b, Location loc, attn::CastOp op, Value in,
                     Value out, ValueRange indices) {
  Type f32 = b.getF32Type();
  Value value = memref::LoadOp::create(b, loc, in, indices);
  if (value.getType() != f32)
    value = arith::ExtFOp::create(b, loc, f32, value);
  if (std::optional<APFloat> scale = op.getScale())
    value = arith::MulFOp::create(
        b, loc, value,
        arith::ConstantOp::create(b, loc, b.getF32FloatAttr(
                                              scale->convertToFloat())));
  Type result = op.getOut().getType().getElementType();
  if (result != f32)
    value = arith::TruncFOp::create(b, loc, result, value);
  memref::StoreOp::create(b, loc, value, out, indices);
}

} // namespace

attnc::CastGrid attnc::castGrid(OpBuilder &b, Location loc, attn::CastOp op,
                                Value in) {
  CastGrid grid;
  grid.count = arith::ConstantIndexOp::create(b, loc, 1);
  for (Value extent : extentsOf(b, loc, in))
    grid.count = arith::MulIOp::create(b, loc, grid.count, extent);
  grid.blockSize = arith::ConstantIndexOp::create(b, loc, *op.getBlockSize());
  grid.blocks = arith::CeilDivUIOp::create(b, loc, grid.count, grid.blockSize);
  return grid;
}

std::pair<Value, Value> attnc::castBlockRange(OpBuilder &b, Location loc,
                                              const CastGrid &grid,
                                              Value block) {
  Value first = arith::MulIOp::create(b, loc, block, grid.blockSize);
  Value end = arith::MinUIOp::create(
      b, loc, grid.count, arith::AddIOp::create(b, loc, first, grid.blockSize));
  return {first, end};
}

void attnc::emitCastLoop(OpBuilder &b, Location loc, attn::CastOp op,
                         Value in, Value out, Value begin, Value end,
                         int64_t step) {
  SmallVector<Value> extents = extentsOf(b, loc, in);
  Value stepValue = arith::ConstantIndexOp::create(b, loc, step);
  // The step as a multi-index; a step past the first dim leaves the
  // tensor, where the loop ends anyway.
  SmallVector<Value> delta = delinearize(b, loc, stepValue, extents);
  auto loop = scf::ForOp::create(b, loc, begin, end, stepValue,
                                 delinearize(b, loc, begin, extents));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  ValueRange indices = loop.getRegionIterArgs();
  emitCastElement(b, loc, op, in, out, indices);
  scf::YieldOp::create(b, loc,
                       addMixedRadix(b, loc, indices, delta, extents));
}

LogicalResult attnc::checkCastKernel(attn::CastOp op) {
  for (Type type : {op.getIn().getType().getElementType(),
                    op.getOut().getType().getElementType()})
    if (!type.isF32() && !type.isF16() && !type.isBF16())
      return op.emitOpError()
             << "code generation converts between f32, f16 and bf16; "
             << type << " is not supported yet";
  return success();
}
