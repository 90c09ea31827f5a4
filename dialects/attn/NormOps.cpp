//===- NormOps.cpp - attn.rms_norm and its gradient -----------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// RMSNorm's forward op, its gradient kernel and the row sum that finishes
// the weight's gradient: shape rules, dims for program formation and the
// gradient rule.
//
//===----------------------------------------------------------------------===//

#include "dialects/attn/AttnOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::attn;

/// Partial rows of an RMSNorm weight gradient, a warp each on a GPU:
/// enough warps to read the rows at full bandwidth (4 rows each at 4 x 4k
/// tokens), few enough that their sum is cheap (32 MB at width 2048).
static constexpr int64_t kNormGradPartials = 4096;

static bool isNormElementType(Type type) {
  return type.isF32() || type.isF16() || type.isBF16();
}

/// `value` (`what`) is a tensor of f32, f16 or bf16 elements of `shape`
/// (dims compatible), its static dims in range.
static LogicalResult verifyNormValue(Operation *op, StringRef what, Value value,
                                     ArrayRef<int64_t> shape,
                                     bool f32Only = false) {
  auto type = cast<RankedTensorType>(value.getType());
  Type element = type.getElementType();
  if (f32Only ? !element.isF32() : !isNormElementType(element))
    return op->emitOpError() << "expected " << what << " to have "
                             << (f32Only ? "f32" : "f32, f16 or bf16")
                             << " elements, got " << type;
  if (failed(verifyCompatibleShape(type.getShape(), shape)))
    return op->emitOpError() << "expected " << what << " to have shape "
                             << shapeString(shape) << ", got " << type;
  return verifyExtents(op, what, type);
}

/// Rows [r..., D] with D static; returns D.
static FailureOr<int64_t> verifyRows(Operation *op, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  if (type.getRank() < 1 || type.isDynamicDim(type.getRank() - 1))
    return op->emitOpError()
           << "expected x to have rows of a static width (its last dim), got "
           << type;
  return type.getDimSize(type.getRank() - 1);
}

static LogicalResult verifyBlockSize(Operation *op,
                                     std::optional<int64_t> block) {
  if (block && (*block < 1 || *block > 1024))
    return op->emitOpError()
           << "expected block_size in [1, 1024], got " << *block;
  return success();
}

LogicalResult RmsNormOp::verify() {
  FailureOr<int64_t> width = verifyRows(*this, getX());
  if (failed(width))
    return failure();
  ArrayRef<int64_t> shape = getX().getType().getShape();
  float epsilon = getEpsilon().convertToFloat();
  if (!std::isfinite(epsilon) || epsilon < 0)
    return emitOpError() << "expected a finite epsilon >= 0, got " << epsilon;
  if (failed(verifyNormValue(*this, "x", getX(), shape)) ||
      failed(verifyNormValue(*this, "weight", getWeight(), {*width})) ||
      failed(verifyNormValue(*this, "out", getOut(), shape)) ||
      failed(verifyNormValue(*this, "rstd", getRstd(), shape.drop_back(),
                             /*f32Only=*/true)))
    return failure();
  return verifyBlockSize(*this, getBlockSize());
}

LogicalResult RmsNormGradOp::verify() {
  FailureOr<int64_t> width = verifyRows(*this, getX());
  if (failed(width))
    return failure();
  ArrayRef<int64_t> shape = getX().getType().getShape();
  auto partial = getDweightPartial().getType();
  if (partial.getRank() != 2 || partial.isDynamicDim(0))
    return emitOpError() << "expected dweight_partial to be [P, D] with a "
                            "static P, got "
                         << partial;
  if (failed(verifyNormValue(*this, "weight", getWeight(), {*width})) ||
      failed(verifyNormValue(*this, "rstd", getRstd(), shape.drop_back(),
                             /*f32Only=*/true)) ||
      failed(verifyNormValue(*this, "dout", getDout(), shape)) ||
      failed(verifyNormValue(*this, "dx", getDx(), shape)) ||
      failed(verifyNormValue(*this, "dweight_partial", getDweightPartial(),
                             {partial.getDimSize(0), *width},
                             /*f32Only=*/true)) ||
      failed(verifyNormValue(*this, "x", getX(), shape)))
    return failure();
  return verifyBlockSize(*this, getBlockSize());
}

LogicalResult SumRowsOp::verify() {
  RankedTensorType in = getIn().getType();
  if (in.getRank() < 2)
    return emitOpError() << "expected rows: an input of rank 2 or more, got "
                         << in;
  if (failed(verifyNormValue(*this, "in", getIn(), in.getShape())) ||
      failed(verifyNormValue(*this, "out", getOut(), {in.getShape().back()})))
    return failure();
  return verifyBlockSize(*this, getBlockSize());
}

//===----------------------------------------------------------------------===//
// KernelOpInterface
//===----------------------------------------------------------------------===//

/// Dim classes of rows [r..., D] (classes 0..rank-1), of their weight [D]
/// and of their statistic [r...].
static SmallVector<int64_t> rowDims(Value x) {
  return llvm::to_vector(
      llvm::seq<int64_t>(0, cast<RankedTensorType>(x.getType()).getRank()));
}

StringRef RmsNormOp::getKernelKind() { return "rms_norm"; }

SmallVector<StringRef> RmsNormOp::getValueRoles() {
  return {"x", "weight", "out", "rstd"};
}

SmallVector<SmallVector<int64_t>> RmsNormOp::getDimClasses() {
  SmallVector<int64_t> rows = rowDims(getX());
  return {rows,
          {rows.back()},
          rows,
          SmallVector<int64_t>(ArrayRef(rows).drop_back())};
}

StringRef RmsNormOp::getDimClassName(int64_t) { return ""; }

bool RmsNormOp::hasKernelConfig() { return getBlockSize().has_value(); }

StringRef RmsNormGradOp::getKernelKind() { return "rms_norm_grad"; }

SmallVector<StringRef> RmsNormGradOp::getValueRoles() {
  return {"x", "weight", "rstd", "dout", "dx", "dweight_partial"};
}

/// The partial rows' P is a class of its own.
SmallVector<SmallVector<int64_t>> RmsNormGradOp::getDimClasses() {
  SmallVector<int64_t> rows = rowDims(getX());
  int64_t partials = static_cast<int64_t>(rows.size());
  return {rows, {rows.back()}, SmallVector<int64_t>(ArrayRef(rows).drop_back()),
          rows, rows,          {partials, rows.back()}};
}

StringRef RmsNormGradOp::getDimClassName(int64_t) { return ""; }

bool RmsNormGradOp::hasKernelConfig() { return getBlockSize().has_value(); }

StringRef SumRowsOp::getKernelKind() { return "sum_rows"; }

SmallVector<StringRef> SumRowsOp::getValueRoles() { return {"in", "out"}; }

SmallVector<SmallVector<int64_t>> SumRowsOp::getDimClasses() {
  SmallVector<int64_t> rows = rowDims(getIn());
  return {rows, {rows.back()}};
}

StringRef SumRowsOp::getDimClassName(int64_t) { return ""; }

bool SumRowsOp::hasKernelConfig() { return getBlockSize().has_value(); }

//===----------------------------------------------------------------------===//
// VJPOpInterface
//===----------------------------------------------------------------------===//

bool RmsNormOp::isDifferentiableResult(unsigned index) { return index == 0; }

/// dx and the weight's partial sums from one kernel, then their row sum in
/// the weight's type.
FailureOr<SmallVector<Value>> RmsNormOp::buildVJP(OpBuilder &builder,
                                                  ValueRange resultCotangents) {
  if (resultCotangents.size() != 2)
    return emitOpError() << "expected two result cotangents, got "
                         << resultCotangents.size();
  if (resultCotangents[1])
    return emitOpError() << "cannot differentiate through rstd: the gradient "
                            "of rms_norm takes a cotangent of out only";
  Value dout = resultCotangents[0];
  if (!dout)
    return SmallVector<Value>{Value(), Value()};
  Location loc = getLoc();
  auto weight = getWeight().getType();
  auto partial = RankedTensorType::get(
      {kNormGradPartials, weight.getDimSize(0)}, builder.getF32Type());
  auto grad = RmsNormGradOp::create(builder, loc, getX().getType(), partial,
                                    getX(), getWeight(), getRstd(), dout,
                                    /*block_size=*/IntegerAttr());
  Value dweight =
      SumRowsOp::create(builder, loc, weight, grad.getDweightPartial(),
                        /*block_size=*/IntegerAttr());
  return SmallVector<Value>{grad.getDx(), dweight};
}
