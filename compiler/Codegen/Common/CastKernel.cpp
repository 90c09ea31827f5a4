//===- CastKernel.cpp - The element work of attn.cast kernels -------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/Common/CastKernel.h"

#include "dialects/attn/AttnOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

Value attnc::numElements(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  Value count = arith::ConstantIndexOp::create(b, loc, 1);
  for (int64_t d = 0; d < type.getRank(); ++d)
    count = arith::MulIOp::create(b, loc, count,
                                  memref::DimOp::create(b, loc, buffer, d));
  return count;
}

attnc::CastGrid attnc::castGrid(OpBuilder &b, Location loc, attn::CastOp op,
                                Value in) {
  CastGrid grid;
  grid.count = numElements(b, loc, in);
  grid.blockSize = arith::ConstantIndexOp::create(b, loc, *op.getBlockSize());
  grid.blocks = arith::CeilDivUIOp::create(b, loc, grid.count, grid.blockSize);
  return grid;
}

void attnc::emitCastElement(OpBuilder &b, Location loc, attn::CastOp op,
                            Value in, Value out, Value linear) {
  auto type = cast<MemRefType>(in.getType());
  SmallVector<Value> indices(type.getRank());
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    Value extent = memref::DimOp::create(b, loc, in, d);
    indices[d] = d == 0 ? linear
                        : arith::RemUIOp::create(b, loc, linear, extent)
                              .getResult();
    if (d > 0)
      linear = arith::DivUIOp::create(b, loc, linear, extent);
  }
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

LogicalResult attnc::checkCastKernel(attn::CastOp op) {
  if (!op.getBlockSize())
    return op->emitError() << "the block size is not set: run "
                              "attn-kernel-config first or give the op a "
                              "`block_size` attribute";
  for (Type type : {op.getIn().getType().getElementType(),
                    op.getOut().getType().getElementType()})
    if (!type.isF32() && !type.isF16() && !type.isBF16())
      return op.emitOpError()
             << "code generation converts between f32, f16 and bf16; "
             << type << " is not supported yet";
  return success();
}
