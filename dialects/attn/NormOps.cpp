//===- NormOps.cpp - attn.rms_norm, attn.layer_norm and their gradients ---===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// RMSNorm's and LayerNorm's forward ops, their gradient kernels and the
// row sum that finishes a weight's gradient: shape rules, dims for program
// formation and the gradient rule.
//
//===----------------------------------------------------------------------===//

#include "dialects/attn/AttnOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::attn;

/// Partial rows of a norm's weight gradient, a warp each on a GPU:
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

LogicalResult mlir::attn::verifyBlockSize(Operation *op,
                                          std::optional<int64_t> block) {
  if (block && (*block < 1 || *block > 1024))
    return op->emitOpError()
           << "expected block_size in [1, 1024], got " << *block;
  return success();
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

/// attn.rms_norm and attn.layer_norm: x [r..., D], weight [D] and a bias
/// [D] (layer_norm's, optional) to out [r..., D] and rstd [r...].
template <typename Op>
static LogicalResult verifyNorm(Op op, Value bias = Value()) {
  FailureOr<int64_t> width = verifyRows(op, op.getX());
  if (failed(width))
    return failure();
  ArrayRef<int64_t> shape = op.getX().getType().getShape();
  float epsilon = op.getEpsilon().convertToFloat();
  if (!std::isfinite(epsilon) || epsilon < 0)
    return op.emitOpError()
           << "expected a finite epsilon >= 0, got " << epsilon;
  if (failed(verifyNormValue(op, "x", op.getX(), shape)) ||
      failed(verifyNormValue(op, "weight", op.getWeight(), {*width})) ||
      (bias && failed(verifyNormValue(op, "bias", bias, {*width}))) ||
      failed(verifyNormValue(op, "out", op.getOut(), shape)) ||
      failed(verifyNormValue(op, "rstd", op.getRstd(), shape.drop_back(),
                             /*f32Only=*/true)))
    return failure();
  return verifyBlockSize(op, op.getBlockSize());
}

/// Their gradients: x, weight, rstd and dout to dx and dweight_partial
/// [P, D].
template <typename Op> static LogicalResult verifyNormGrad(Op op) {
  FailureOr<int64_t> width = verifyRows(op, op.getX());
  if (failed(width))
    return failure();
  ArrayRef<int64_t> shape = op.getX().getType().getShape();
  auto partial = op.getDweightPartial().getType();
  if (partial.getRank() != 2 || partial.isDynamicDim(0))
    return op.emitOpError() << "expected dweight_partial to be [P, D] with a "
                               "static P, got "
                            << partial;
  if (failed(verifyNormValue(op, "weight", op.getWeight(), {*width})) ||
      failed(verifyNormValue(op, "rstd", op.getRstd(), shape.drop_back(),
                             /*f32Only=*/true)) ||
      failed(verifyNormValue(op, "dout", op.getDout(), shape)) ||
      failed(verifyNormValue(op, "dx", op.getDx(), shape)) ||
      failed(verifyNormValue(op, "dweight_partial", op.getDweightPartial(),
                             {partial.getDimSize(0), *width},
                             /*f32Only=*/true)) ||
      failed(verifyNormValue(op, "x", op.getX(), shape)))
    return failure();
  if (Value addend = op.getAddend();
      addend && addend.getType() != op.getDx().getType())
    return op.emitOpError()
           << "expected an addend of dx's type " << op.getDx().getType()
           << ", got " << addend.getType();
  return verifyBlockSize(op, op.getBlockSize());
}

LogicalResult RmsNormOp::verify() { return verifyNorm(*this); }

LogicalResult LayerNormOp::verify() { return verifyNorm(*this, getBias()); }

LogicalResult RmsNormGradOp::verify() { return verifyNormGrad(*this); }

LogicalResult LayerNormGradOp::verify() { return verifyNormGrad(*this); }

//===----------------------------------------------------------------------===//
// F32ComputeOpInterface
//===----------------------------------------------------------------------===//

// A norm reads x, the weight and a bias widened to f32 and rounds out once;
// rstd is f32 only.
bool RmsNormOp::readsInF32(unsigned index) { return true; }
bool RmsNormOp::roundsFromF32(unsigned index) { return index == 0; }
bool LayerNormOp::readsInF32(unsigned index) { return true; }
bool LayerNormOp::roundsFromF32(unsigned index) { return index == 0; }

// A norm gradient reads x, the weight and dout widened to f32 (rstd is f32
// only, an addend has dx's type) and rounds dx once; dx keeps its type
// while an addend is tied to it.
template <typename Op> static bool gradReadsInF32(Op op, unsigned index) {
  return index != op.getRstdMutable().getOperandNumber() &&
         !(op.getAddend() &&
           index == op.getAddendMutable()[0].getOperandNumber());
}
bool RmsNormGradOp::readsInF32(unsigned index) {
  return gradReadsInF32(*this, index);
}
bool RmsNormGradOp::roundsFromF32(unsigned index) {
  return index == 0 && !getAddend();
}
bool LayerNormGradOp::readsInF32(unsigned index) {
  return gradReadsInF32(*this, index);
}
bool LayerNormGradOp::roundsFromF32(unsigned index) {
  return index == 0 && !getAddend();
}

LogicalResult SumRowsOp::verify() {
  RankedTensorType in = getIn().getType();
  bool total = getOut().getType().getRank() == 0;
  if (total ? in.getRank() != 1 : in.getRank() < 2)
    return emitOpError() << (total ? "expected a rank-1 input for a rank-0 "
                                     "result, got "
                                   : "expected rows: an input of rank 2 or "
                                     "more, got ")
                         << in;
  SmallVector<int64_t> out;
  if (!total)
    out.push_back(in.getShape().back());
  if (failed(verifyNormValue(*this, "in", getIn(), in.getShape())) ||
      failed(verifyNormValue(*this, "out", getOut(), out)))
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

/// The dim classes of a forward norm's x, weight, bias (if any), out and
/// rstd.
static SmallVector<SmallVector<int64_t>> normDims(Value x, bool hasBias) {
  SmallVector<int64_t> rows = rowDims(x);
  SmallVector<SmallVector<int64_t>> dims = {rows, {rows.back()}};
  if (hasBias)
    dims.push_back({rows.back()});
  dims.append({rows, SmallVector<int64_t>(ArrayRef(rows).drop_back())});
  return dims;
}

/// A gradient's x, weight, rstd, dout, dx and partial rows, whose P is a
/// class of its own.
/// x, weight, rstd, dout, the addend if there is one, dx, dweight_partial.
static SmallVector<SmallVector<int64_t>> normGradDims(Value x, bool addend) {
  SmallVector<int64_t> rows = rowDims(x);
  int64_t partials = static_cast<int64_t>(rows.size());
  SmallVector<SmallVector<int64_t>> dims = {
      rows,
      {rows.back()},
      SmallVector<int64_t>(ArrayRef(rows).drop_back()),
      rows};
  if (addend)
    dims.push_back(rows);
  dims.append({rows, {partials, rows.back()}});
  return dims;
}

static SmallVector<StringRef> normGradRoles(bool addend) {
  if (addend)
    return {"x", "weight", "rstd", "dout", "addend", "dx", "dweight_partial"};
  return {"x", "weight", "rstd", "dout", "dx", "dweight_partial"};
}

StringRef RmsNormOp::getKernelKind() { return "rms_norm"; }

SmallVector<StringRef> RmsNormOp::getValueRoles() {
  return {"x", "weight", "out", "rstd"};
}

SmallVector<SmallVector<int64_t>> RmsNormOp::getDimClasses() {
  return normDims(getX(), /*hasBias=*/false);
}

StringRef RmsNormOp::getDimClassName(int64_t) { return ""; }

bool RmsNormOp::hasKernelConfig() { return getBlockSize().has_value(); }

StringRef LayerNormOp::getKernelKind() { return "layer_norm"; }

SmallVector<StringRef> LayerNormOp::getValueRoles() {
  if (getBias())
    return {"x", "weight", "bias", "out", "rstd"};
  return {"x", "weight", "out", "rstd"};
}

SmallVector<SmallVector<int64_t>> LayerNormOp::getDimClasses() {
  return normDims(getX(), static_cast<bool>(getBias()));
}

StringRef LayerNormOp::getDimClassName(int64_t) { return ""; }

bool LayerNormOp::hasKernelConfig() { return getBlockSize().has_value(); }

StringRef RmsNormGradOp::getKernelKind() { return "rms_norm_grad"; }

SmallVector<StringRef> RmsNormGradOp::getValueRoles() {
  return normGradRoles(getAddend() != nullptr);
}

SmallVector<SmallVector<int64_t>> RmsNormGradOp::getDimClasses() {
  return normGradDims(getX(), getAddend() != nullptr);
}

StringRef RmsNormGradOp::getDimClassName(int64_t) { return ""; }

bool RmsNormGradOp::hasKernelConfig() { return getBlockSize().has_value(); }

StringRef LayerNormGradOp::getKernelKind() { return "layer_norm_grad"; }

SmallVector<StringRef> LayerNormGradOp::getValueRoles() {
  return normGradRoles(getAddend() != nullptr);
}

SmallVector<SmallVector<int64_t>> LayerNormGradOp::getDimClasses() {
  return normGradDims(getX(), getAddend() != nullptr);
}

StringRef LayerNormGradOp::getDimClassName(int64_t) { return ""; }

bool LayerNormGradOp::hasKernelConfig() { return getBlockSize().has_value(); }

StringRef SumRowsOp::getKernelKind() {
  return getSquares() ? "sum_squares" : "sum_rows";
}

SmallVector<StringRef> SumRowsOp::getValueRoles() { return {"in", "out"}; }

SmallVector<SmallVector<int64_t>> SumRowsOp::getDimClasses() {
  SmallVector<int64_t> rows = rowDims(getIn());
  if (getOut().getType().getRank() == 0)
    return {rows, {}};
  return {rows, {rows.back()}};
}

StringRef SumRowsOp::getDimClassName(int64_t) { return ""; }

bool SumRowsOp::hasKernelConfig() { return getBlockSize().has_value(); }

//===----------------------------------------------------------------------===//
// EpilogueAddendOpInterface
//===----------------------------------------------------------------------===//

/// `op` (a norm gradient) with `addend` added to its dx.
template <typename GradOp>
static Operation *normGradWithAddend(GradOp op, OpBuilder &builder,
                                     Value addend) {
  return GradOp::create(builder, op.getLoc(), op->getResultTypes(), op.getX(),
                        op.getWeight(), op.getRstd(), op.getDout(), addend,
                        op.getBlockSizeAttr());
}

Value RmsNormGradOp::getAddendTarget() { return getDx(); }
Value RmsNormGradOp::getEpilogueAddend() { return getAddend(); }
Operation *RmsNormGradOp::cloneWithAddend(OpBuilder &builder, Value addend) {
  return normGradWithAddend(*this, builder, addend);
}

Value LayerNormGradOp::getAddendTarget() { return getDx(); }
Value LayerNormGradOp::getEpilogueAddend() { return getAddend(); }
Operation *LayerNormGradOp::cloneWithAddend(OpBuilder &builder, Value addend) {
  return normGradWithAddend(*this, builder, addend);
}

//===----------------------------------------------------------------------===//
// VJPOpInterface
//===----------------------------------------------------------------------===//

/// dx and the weight's partial sums from one kernel (`GradOp`), then their
/// row sum in the weight's type; a bias's gradient is the row sum of dout.
template <typename GradOp, typename Op>
static FailureOr<SmallVector<Value>> buildNormVJP(Op op, OpBuilder &builder,
                                                  ValueRange resultCotangents,
                                                  Value bias = Value()) {
  if (resultCotangents.size() != 2)
    return op.emitOpError()
           << "expected two result cotangents, got " << resultCotangents.size();
  if (resultCotangents[1])
    return op.emitOpError()
           << "cannot differentiate through rstd: the gradient of "
           << op->getName().stripDialect() << " takes a cotangent of out only";
  Value dout = resultCotangents[0];
  SmallVector<Value> grads(op->getNumOperands());
  if (!dout)
    return grads;
  Location loc = op.getLoc();
  auto weight = op.getWeight().getType();
  auto partial = RankedTensorType::get(
      {kNormGradPartials, weight.getDimSize(0)}, builder.getF32Type());
  auto grad = GradOp::create(builder, loc, op.getX().getType(), partial,
                             op.getX(), op.getWeight(), op.getRstd(), dout,
                             /*addend=*/Value(), /*block_size=*/IntegerAttr());
  grads[0] = grad.getDx();
  grads[1] = SumRowsOp::create(builder, loc, weight, grad.getDweightPartial(),
                               /*squares=*/UnitAttr(),
                               /*block_size=*/IntegerAttr());
  if (bias)
    grads[2] = SumRowsOp::create(builder, loc, bias.getType(), dout,
                                 /*squares=*/UnitAttr(),
                                 /*block_size=*/IntegerAttr());
  return grads;
}

bool RmsNormOp::isDifferentiableResult(unsigned index) { return index == 0; }

FailureOr<SmallVector<Value>> RmsNormOp::buildVJP(OpBuilder &builder,
                                                  ValueRange resultCotangents) {
  return buildNormVJP<RmsNormGradOp>(*this, builder, resultCotangents);
}

bool LayerNormOp::isDifferentiableResult(unsigned index) { return index == 0; }

FailureOr<SmallVector<Value>>
LayerNormOp::buildVJP(OpBuilder &builder, ValueRange resultCotangents) {
  return buildNormVJP<LayerNormGradOp>(*this, builder, resultCotangents,
                                       getBias());
}
