//===- VectorAccess.cpp - Chunks of consecutive elements as vectors -------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/Common/VectorAccess.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace {

/// The alignment of a `width`-element chunk of `buffer` at a multiple of
/// `width`, where the buffer starts at a 16-byte boundary.
llvm::MaybeAlign chunkAlignment(Value buffer, int64_t width) {
  int64_t bytes =
      width * cast<MemRefType>(buffer.getType()).getElementTypeBitWidth() / 8;
  return llvm::MaybeAlign(std::min<int64_t>(16, bytes));
}

} // namespace

/// The byte alignment test and the density test share the metadata.
static Value isDense(OpBuilder &b, Location loc,
                     memref::ExtractStridedMetadataOp metadata) {
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto equal = [&](Value x, Value y) -> Value {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
  };
  Value applies = arith::ConstantIntOp::create(b, loc, 1, 1);
  Value dense = index(1);
  for (int64_t d = metadata.getSizes().size() - 1; d >= 0; --d) {
    Value size = metadata.getSizes()[d];
    applies = arith::AndIOp::create(
        b, loc, applies,
        arith::OrIOp::create(b, loc, equal(metadata.getStrides()[d], dense),
                             equal(size, index(1))));
    dense = arith::MulIOp::create(b, loc, dense, size);
  }
  return applies;
}

Value attnc::isDense(OpBuilder &b, Location loc, Value buffer) {
  return ::isDense(b, loc,
                   memref::ExtractStridedMetadataOp::create(b, loc, buffer));
}

/// Whether `buffer` starts at a 16-byte boundary and each of `strides`
/// (in elements) is a multiple of 16 bytes.
static Value isAligned(OpBuilder &b, Location loc, Value buffer,
                       memref::ExtractStridedMetadataOp metadata,
                       ValueRange strides) {
  int64_t bytes =
      cast<MemRefType>(buffer.getType()).getElementTypeBitWidth() / 8;
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto multipleOf16 = [&](Value elements) -> Value {
    return arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq,
        arith::RemUIOp::create(
            b, loc, arith::MulIOp::create(b, loc, elements, index(bytes)),
            index(16)),
        index(0));
  };
  Value aligned = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      arith::RemUIOp::create(
          b, loc,
          arith::AddIOp::create(
              b, loc,
              memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer),
              arith::MulIOp::create(b, loc, metadata.getOffset(),
                                    index(bytes))),
          index(16)),
      index(0));
  for (Value stride : strides)
    aligned = arith::AndIOp::create(b, loc, aligned, multipleOf16(stride));
  return aligned;
}

Value attnc::isDenseAndAligned(OpBuilder &b, Location loc, Value buffer) {
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
  return arith::AndIOp::create(b, loc, isAligned(b, loc, buffer, metadata, {}),
                               ::isDense(b, loc, metadata));
}

Value attnc::hasAlignedRows(OpBuilder &b, Location loc, Value buffer) {
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
  ValueRange strides = metadata.getStrides();
  if (strides.empty())
    return isAligned(b, loc, buffer, metadata, {});
  Value unitRows =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, strides.back(),
                            arith::ConstantIndexOp::create(b, loc, 1));
  return arith::AndIOp::create(
      b, loc, unitRows,
      isAligned(b, loc, buffer, metadata, strides.drop_back()));
}

Value attnc::denseView(OpBuilder &b, Location loc, Value buffer,
                       DenseLayout layout) {
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
  // Static sizes stay static: the chunk code reads some from the type.
  SmallVector<OpFoldResult> sizes;
  for (auto [extent, size] : llvm::zip(
           cast<MemRefType>(buffer.getType()).getShape(), metadata.getSizes()))
    sizes.push_back(ShapedType::isDynamic(extent) ? OpFoldResult(size)
                                                  : b.getIndexAttr(extent));
  SmallVector<OpFoldResult> strides = getAsOpFoldResult(metadata.getStrides());
  if (layout != DenseLayout::Strided) {
    // Every dim (flat), or every dim but the last (matrix), as one.
    size_t collapsed =
        layout == DenseLayout::Flat ? sizes.size() : sizes.size() - 1;
    Value count = arith::ConstantIndexOp::create(b, loc, 1);
    for (Value size : metadata.getSizes().take_front(collapsed))
      count = arith::MulIOp::create(b, loc, count, size);
    SmallVector<OpFoldResult> kept(sizes.begin() + collapsed, sizes.end());
    sizes = {count};
    llvm::append_range(sizes, kept);
    strides = SmallVector<OpFoldResult>(kept);
    strides.push_back(b.getIndexAttr(1));
  }
  strides.back() = b.getIndexAttr(1);
  return memref::ReinterpretCastOp::create(b, loc, buffer, metadata.getOffset(),
                                           sizes, strides);
}

Value attnc::loadChunk(OpBuilder &b, Location loc, Value buffer,
                       ValueRange indices, int64_t width) {
  Type element = cast<MemRefType>(buffer.getType()).getElementType();
  Type f32 = b.getF32Type();
  Value chunk;
  if (width == 1) {
    chunk = memref::LoadOp::create(b, loc, buffer, indices);
  } else {
    chunk = vector::LoadOp::create(b, loc, VectorType::get({width}, element),
                                   buffer, indices, /*nontemporal=*/false,
                                   chunkAlignment(buffer, width));
    f32 = VectorType::get({width}, f32);
  }
  return element.isF32()
             ? chunk
             : arith::ExtFOp::create(b, loc, f32, chunk).getResult();
}

void attnc::storeChunk(OpBuilder &b, Location loc, Value value, Value buffer,
                       ValueRange indices) {
  Type element = cast<MemRefType>(buffer.getType()).getElementType();
  auto vector = dyn_cast<VectorType>(value.getType());
  if (!element.isF32())
    value = arith::TruncFOp::create(
        b, loc, vector ? vector.clone(element) : element, value);
  if (!vector) {
    memref::StoreOp::create(b, loc, value, buffer, indices);
    return;
  }
  vector::StoreOp::create(b, loc, value, buffer, indices,
                          /*nontemporal=*/false,
                          chunkAlignment(buffer, vector.getNumElements()));
}
