//===- HeadsOps.cpp - attn.split_heads and attn.merge_heads ---------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The layout change between projections ([B, N, H * D]) and attention
// ([B, H, N, D]), with rotary embeddings on the way. Each op is the
// other's gradient.
//
//===----------------------------------------------------------------------===//

#include "dialects/attn/AttnOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::attn;

static bool isHeadsElementType(Type type) {
  return type.isF32() || type.isF16() || type.isBF16();
}

/// The shape rules both ops share: `flat` [B, N, H * D] and `heads`
/// [B, H, N, D] of f32, f16 or bf16 with H and D static, and no tables or
/// cos and sin of one shape [N, R/2] in f32 with R <= D.
static LogicalResult verifyHeads(Operation *op, Value flat, Value heads,
                                 ValueRange tables) {
  auto flatType = cast<RankedTensorType>(flat.getType());
  auto headsType = cast<RankedTensorType>(heads.getType());
  for (RankedTensorType type : {flatType, headsType})
    if (!isHeadsElementType(type.getElementType()))
      return op->emitOpError()
             << "expected f32, f16 or bf16 elements, got " << type;
  if (flatType.getRank() != 3 || headsType.getRank() != 4)
    return op->emitOpError() << "expected [B, N, H * D] and [B, H, N, D], got "
                             << flatType << " and " << headsType;
  ArrayRef<int64_t> f = flatType.getShape(), h = headsType.getShape();
  if (ShapedType::isDynamic(h[1]) || ShapedType::isDynamic(h[3]) || h[1] < 1 ||
      h[3] < 1 || h[1] > kMaxExtent || h[3] > kMaxExtent)
    return op->emitOpError() << "expected a static head count and head dim, "
                                "got "
                             << headsType;
  SmallVector<int64_t> expected = {h[0], h[2], h[1] * h[3]};
  if (failed(verifyCompatibleShape(f, expected)))
    return op->emitOpError()
           << "expected [B, N, H * D] = " << shapeString(expected) << ", got "
           << flatType;
  if (failed(verifyExtents(op, "the input", flatType)) ||
      failed(verifyExtents(op, "the output", headsType)))
    return failure();
  if (tables.empty())
    return success();
  if (tables.size() != 2)
    return op->emitOpError() << "expected no rotary tables or two (cos, "
                                "sin), got "
                             << tables.size();
  auto cosType = cast<RankedTensorType>(tables[0].getType());
  if (tables[1].getType() != cosType || !cosType.getElementType().isF32() ||
      cosType.getRank() != 2 || cosType.isDynamicDim(1))
    return op->emitOpError() << "expected cos and sin of one type, [N, R/2] "
                                "of f32 with a static R/2, got "
                             << cosType << " and " << tables[1].getType();
  int64_t half = cosType.getDimSize(1);
  if (failed(verifyCompatibleDims({cosType.getDimSize(0), h[2]})))
    return op->emitOpError() << "expected the tables' rows to be the "
                                "sequence's N = "
                             << h[2] << ", got " << cosType;
  if (half < 1 || 2 * half > h[3])
    return op->emitOpError() << "expected rotary dims 2 * " << half
                             << " within the head dim " << h[3];
  return success();
}

LogicalResult SplitHeadsOp::verify() {
  return verifyHeads(*this, getX(), getOut(), getTables());
}

LogicalResult MergeHeadsOp::verify() {
  return verifyHeads(*this, getOut(), getY(), getTables());
}

//===----------------------------------------------------------------------===//
// KernelOpInterface
//===----------------------------------------------------------------------===//

/// Classes: B 0, N 1, H * D 2, H 3, D 4, R/2 5.
static SmallVector<SmallVector<int64_t>> headsDims(bool split,
                                                   size_t numTables) {
  SmallVector<int64_t> flat = {0, 1, 2}, heads = {0, 3, 1, 4};
  SmallVector<SmallVector<int64_t>> dims = {split ? flat : heads};
  dims.append(numTables, {1, 5});
  dims.push_back(split ? heads : flat);
  return dims;
}

StringRef SplitHeadsOp::getKernelKind() { return "split_heads"; }

SmallVector<StringRef> SplitHeadsOp::getValueRoles() {
  SmallVector<StringRef> roles = {"x"};
  if (!getTables().empty())
    roles.append({"cos", "sin"});
  roles.push_back("out");
  return roles;
}

SmallVector<SmallVector<int64_t>> SplitHeadsOp::getDimClasses() {
  return headsDims(/*split=*/true, getTables().size());
}

StringRef SplitHeadsOp::getDimClassName(int64_t) { return ""; }

bool SplitHeadsOp::hasKernelConfig() { return getBlockSize().has_value(); }

StringRef MergeHeadsOp::getKernelKind() { return "merge_heads"; }

SmallVector<StringRef> MergeHeadsOp::getValueRoles() {
  SmallVector<StringRef> roles = {"y"};
  if (!getTables().empty())
    roles.append({"cos", "sin"});
  roles.push_back("out");
  return roles;
}

SmallVector<SmallVector<int64_t>> MergeHeadsOp::getDimClasses() {
  return headsDims(/*split=*/false, getTables().size());
}

StringRef MergeHeadsOp::getDimClassName(int64_t) { return ""; }

bool MergeHeadsOp::hasKernelConfig() { return getBlockSize().has_value(); }

//===----------------------------------------------------------------------===//
// VJPOpInterface
//===----------------------------------------------------------------------===//

bool SplitHeadsOp::isDifferentiableOperand(unsigned index) {
  return index == 0;
}

bool MergeHeadsOp::isDifferentiableOperand(unsigned index) {
  return index == 0;
}

/// The cotangent of each op's input is the other op on the result's
/// cotangent, with the same tables: the rotation's transpose undoes it.
template <typename Transpose>
static FailureOr<SmallVector<Value>>
buildHeadsVJP(Operation *op, OpBuilder &builder, ValueRange resultCotangents) {
  if (resultCotangents.size() != 1)
    return op->emitOpError()
           << "expected one result cotangent, got " << resultCotangents.size();
  SmallVector<Value> cotangents(op->getNumOperands(), Value());
  Value dout = resultCotangents.front();
  if (!dout)
    return cotangents;
  if (dout.getType() != op->getResult(0).getType())
    return op->emitOpError()
           << "expected the result cotangent to be "
           << op->getResult(0).getType() << ", got " << dout.getType();
  cotangents[0] =
      Transpose::create(builder, op->getLoc(), op->getOperand(0).getType(),
                        dout, op->getOperands().drop_front(),
                        /*block_size=*/IntegerAttr());
  return cotangents;
}

FailureOr<SmallVector<Value>>
SplitHeadsOp::buildVJP(OpBuilder &builder, ValueRange resultCotangents) {
  return buildHeadsVJP<MergeHeadsOp>(*this, builder, resultCotangents);
}

FailureOr<SmallVector<Value>>
MergeHeadsOp::buildVJP(OpBuilder &builder, ValueRange resultCotangents) {
  return buildHeadsVJP<SplitHeadsOp>(*this, builder, resultCotangents);
}

/// The tensor `op`, a layout change without tables, gives back: the input
/// of the inverse change it reads, when that has no tables either, has
/// `op`'s result type and nothing on the way rounds.
template <typename Inverse> static OpFoldResult foldInverse(Operation *op) {
  auto inverse = op->getOperand(0).getDefiningOp<Inverse>();
  if (!inverse || op->getNumOperands() != 1 || inverse->getNumOperands() != 1)
    return {};
  Value original = inverse->getOperand(0);
  Type result = op->getResult(0).getType();
  if (original.getType() != result || getElementTypeOrSelf(inverse->getResult(
                                          0)) != getElementTypeOrSelf(result))
    return {};
  return original;
}

OpFoldResult SplitHeadsOp::fold(FoldAdaptor) {
  return foldInverse<MergeHeadsOp>(*this);
}

OpFoldResult MergeHeadsOp::fold(FoldAdaptor) {
  return foldInverse<SplitHeadsOp>(*this);
}
