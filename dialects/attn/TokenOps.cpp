//===- TokenOps.cpp - Embeddings and losses over a vocabulary -------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Ops indexed by token ids or labels: the token embedding, the softmax
// cross-entropy of rows of logits against integer labels, the mean of
// per-token values over the tokens that count, and the kernels of their
// gradients: shape rules, dims for program formation and the gradient
// rules. Ids and labels take no gradient.
//
//===----------------------------------------------------------------------===//

#include "dialects/attn/AttnOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::attn;

/// `value` (`what`) has `shape` (dims compatible) and elements `element`
/// says are right (`elements` names them for the message).
template <typename IsElement>
static LogicalResult verifyLossValue(Operation *op, StringRef what, Value value,
                                     ArrayRef<int64_t> shape,
                                     StringRef elements, IsElement isElement) {
  auto type = cast<RankedTensorType>(value.getType());
  if (!isElement(type.getElementType()))
    return op->emitOpError() << "expected " << what << " to have " << elements
                             << " elements, got " << type;
  if (failed(verifyCompatibleShape(type.getShape(), shape)))
    return op->emitOpError() << "expected " << what << " to have shape "
                             << shapeString(shape) << ", got " << type;
  return verifyExtents(op, what, type);
}

static LogicalResult verifyF32(Operation *op, StringRef what, Value value,
                               ArrayRef<int64_t> shape) {
  return verifyLossValue(op, what, value, shape, "f32",
                         [](Type t) { return t.isF32(); });
}

/// Ids or labels (`what`) of `shape`, i32 or i64.
static LogicalResult verifyIndices(Operation *op, StringRef what, Value value,
                                   ArrayRef<int64_t> shape) {
  return verifyLossValue(op, what, value, shape, "i32 or i64", [](Type t) {
    return t.isSignlessInteger(32) || t.isSignlessInteger(64);
  });
}

/// Labels of `shape`, i32 or i64, whose type holds the op's ignore_index.
static LogicalResult verifyLabels(Operation *op, Value labels,
                                  ArrayRef<int64_t> shape) {
  if (failed(verifyIndices(op, "labels", labels, shape)))
    return failure();
  int64_t ignore = op->getAttrOfType<IntegerAttr>("ignore_index").getInt();
  if (getElementTypeOrSelf(labels).isSignlessInteger(32) &&
      (ignore < INT32_MIN || ignore > INT32_MAX))
    return op->emitOpError() << "expected ignore_index to fit the labels' i32, "
                                "got "
                             << ignore;
  return success();
}

/// Logits [r..., V] with V static; returns their rows' shape [r...].
static FailureOr<SmallVector<int64_t>> verifyLogits(Operation *op,
                                                    Value logits) {
  auto type = cast<RankedTensorType>(logits.getType());
  Type element = type.getElementType();
  if (type.getRank() < 1 || type.isDynamicDim(type.getRank() - 1))
    return op->emitOpError() << "expected logits to have rows of a static "
                                "class count (their last dim), got "
                             << type;
  if (!element.isF32() && !element.isF16() && !element.isBF16())
    return op->emitOpError()
           << "expected logits to have f32, f16 or bf16 elements, got " << type;
  if (failed(verifyExtents(op, "logits", type)))
    return failure();
  return SmallVector<int64_t>(type.getShape().drop_back());
}

/// A table [V, D], both static, of f32, f16 or bf16; returns it.
static FailureOr<RankedTensorType> verifyTable(Operation *op, Type type) {
  auto table = cast<RankedTensorType>(type);
  Type element = table.getElementType();
  if (table.getRank() != 2 || !table.hasStaticShape())
    return op->emitOpError()
           << "expected a table [V, D] of static extents, got " << table;
  if (!element.isF32() && !element.isF16() && !element.isBF16())
    return op->emitOpError()
           << "expected the table to have f32, f16 or bf16 elements, got "
           << table;
  if (failed(verifyExtents(op, "table", table)))
    return failure();
  return table;
}

/// The shape of the rows picked by ids `ids`: ids' shape, then D.
static SmallVector<int64_t> pickedShape(Value ids, RankedTensorType table) {
  SmallVector<int64_t> shape(cast<RankedTensorType>(ids.getType()).getShape());
  shape.push_back(table.getDimSize(1));
  return shape;
}

LogicalResult EmbeddingOp::verify() {
  FailureOr<RankedTensorType> table = verifyTable(*this, getTable().getType());
  if (failed(table))
    return failure();
  ArrayRef<int64_t> ids = getIds().getType().getShape();
  if (failed(verifyIndices(*this, "ids", getIds(), ids)))
    return failure();
  RankedTensorType out = getOut().getType();
  if (out.getElementType() != table->getElementType() ||
      failed(
          verifyCompatibleShape(out.getShape(), pickedShape(getIds(), *table))))
    return emitOpError() << "expected a result of shape "
                         << shapeString(pickedShape(getIds(), *table))
                         << " and the table's element type, got " << out;
  return verifyBlockSize(*this, getBlockSize());
}

/// An i32 tensor (`what`) of `shape`.
static LogicalResult verifyI32(Operation *op, StringRef what, Value value,
                               ArrayRef<int64_t> shape) {
  return verifyLossValue(op, what, value, shape, "i32",
                         [](Type t) { return t.isSignlessInteger(32); });
}

/// Bounds [V + 1] with V >= 1 static, i32; returns V.
static FailureOr<int64_t> verifyBounds(Operation *op, Value bounds) {
  auto type = cast<RankedTensorType>(bounds.getType());
  if (type.getRank() != 1 || type.isDynamicDim(0) || type.getDimSize(0) < 2)
    return op->emitOpError()
           << "expected bounds [V + 1] of a static V >= 1, got " << type;
  if (failed(verifyI32(op, "bounds", bounds, type.getShape())))
    return failure();
  return type.getDimSize(0) - 1;
}

LogicalResult TokenOrderOp::verify() {
  ArrayRef<int64_t> ids = getIds().getType().getShape();
  if (failed(verifyIndices(*this, "ids", getIds(), ids)) ||
      failed(verifyI32(*this, "order", getOrder(), ids)) ||
      failed(verifyBounds(*this, getBounds())))
    return failure();
  return success();
}

LogicalResult EmbeddingGradOp::verify() {
  FailureOr<RankedTensorType> table = verifyTable(*this, getDtable().getType());
  if (failed(table))
    return failure();
  if (!table->getElementType().isF32())
    return emitOpError() << "expected an f32 table gradient, got " << *table;
  ArrayRef<int64_t> tokens = getOrder().getType().getShape();
  FailureOr<int64_t> classes = verifyBounds(*this, getBounds());
  if (failed(verifyI32(*this, "order", getOrder(), tokens)) || failed(classes))
    return failure();
  if (*classes != table->getDimSize(0))
    return emitOpError() << "expected bounds of " << table->getDimSize(0) + 1
                         << " elements, one more than the table's rows, got "
                         << getBounds().getType();
  auto dout = getDout().getType();
  Type element = dout.getElementType();
  if ((!element.isF32() && !element.isF16() && !element.isBF16()) ||
      failed(verifyCompatibleShape(dout.getShape(),
                                   pickedShape(getOrder(), *table))))
    return emitOpError() << "expected dout of shape "
                         << shapeString(pickedShape(getOrder(), *table))
                         << " with f32, f16 or bf16 elements, got " << dout;
  return verifyBlockSize(*this, getBlockSize());
}

LogicalResult CrossEntropyOp::verify() {
  FailureOr<SmallVector<int64_t>> rows = verifyLogits(*this, getLogits());
  if (failed(rows) || failed(verifyLabels(*this, getLabels(), *rows)) ||
      failed(verifyF32(*this, "losses", getLosses(), *rows)) ||
      failed(verifyF32(*this, "lse", getLse(), *rows)))
    return failure();
  return verifyBlockSize(*this, getBlockSize());
}

/// An LM head's h [r..., C] and table [V, C] (static, h's element type);
/// returns h's rows' shape [r...].
static FailureOr<SmallVector<int64_t>> verifyHead(Operation *op, Value h,
                                                  Value table) {
  FailureOr<SmallVector<int64_t>> rows = verifyLogits(op, h);
  FailureOr<RankedTensorType> tableType =
      failed(rows) ? FailureOr<RankedTensorType>(failure())
                   : verifyTable(op, table.getType());
  if (failed(tableType))
    return failure();
  auto hType = cast<RankedTensorType>(h.getType());
  if (tableType->getElementType() != hType.getElementType() ||
      tableType->getDimSize(1) != hType.getShape().back())
    return op->emitOpError()
           << "expected a table [V, " << hType.getShape().back()
           << "] of h's element type " << hType.getElementType() << ", got "
           << *tableType;
  return rows;
}

LogicalResult LinearCrossEntropyOp::verify() {
  FailureOr<SmallVector<int64_t>> rows = verifyHead(*this, getH(), getTable());
  if (failed(rows) || failed(verifyLabels(*this, getLabels(), *rows)) ||
      failed(verifyF32(*this, "losses", getLosses(), *rows)) ||
      failed(verifyF32(*this, "lse", getLse(), *rows)))
    return failure();
  return success();
}

LogicalResult LinearCrossEntropyGradOp::verify() {
  FailureOr<SmallVector<int64_t>> rows = verifyHead(*this, getH(), getTable());
  if (failed(rows) || failed(verifyLabels(*this, getLabels(), *rows)) ||
      failed(verifyF32(*this, "lse", getLse(), *rows)) ||
      failed(verifyF32(*this, "dlosses", getDlosses(), *rows)))
    return failure();
  if (getDh().getType() != getH().getType() ||
      getDtable().getType() != getTable().getType())
    return emitOpError() << "expected dh and dtable of h's and the table's "
                            "types, got "
                         << getDh().getType() << " and "
                         << getDtable().getType();
  return success();
}

/// A vocabulary chunk's first class, >= 0.
static LogicalResult verifyVocabOffset(Operation *op, int64_t offset) {
  if (offset < 0)
    return op->emitOpError() << "expected a vocab_offset >= 0, got " << offset;
  return success();
}

LogicalResult CrossEntropyPartialOp::verify() {
  FailureOr<SmallVector<int64_t>> rows = verifyLogits(*this, getLogits());
  if (failed(rows) || failed(verifyLabels(*this, getLabels(), *rows)))
    return failure();
  SmallVector<int64_t> part = {1};
  llvm::append_range(part, *rows);
  if (failed(verifyF32(*this, "lse", getLse(), part)) ||
      failed(verifyF32(*this, "target", getTarget(), part)) ||
      failed(verifyVocabOffset(*this, getVocabOffsetAttr().getInt())))
    return failure();
  return verifyBlockSize(*this, getBlockSize());
}

LogicalResult CrossEntropyCombineOp::verify() {
  RankedTensorType parts = getLseParts().getType();
  if (parts.getRank() < 1 || parts.isDynamicDim(0))
    return emitOpError() << "expected lse_parts [P, r...] with a static "
                            "chunk count P, got "
                         << parts;
  SmallVector<int64_t> rows(parts.getShape().drop_front());
  if (failed(verifyF32(*this, "lse_parts", getLseParts(), parts.getShape())) ||
      failed(verifyF32(*this, "targets", getTargets(), parts.getShape())) ||
      failed(verifyLabels(*this, getLabels(), rows)) ||
      failed(verifyF32(*this, "losses", getLosses(), rows)) ||
      failed(verifyF32(*this, "lse", getLse(), rows)))
    return failure();
  // The attributes' signed values: I64Attr's accessors are unsigned.
  if (getVocabSizeAttr().getInt() < 1)
    return emitOpError() << "expected a vocab_size >= 1, got "
                         << getVocabSizeAttr().getInt();
  return verifyBlockSize(*this, getBlockSize());
}

LogicalResult CrossEntropyGradOp::verify() {
  FailureOr<SmallVector<int64_t>> rows = verifyLogits(*this, getLogits());
  if (failed(rows) || failed(verifyLabels(*this, getLabels(), *rows)) ||
      failed(verifyF32(*this, "lse", getLse(), *rows)) ||
      failed(verifyF32(*this, "dlosses", getDlosses(), *rows)) ||
      failed(verifyVocabOffset(*this, getVocabOffsetAttr().getInt())))
    return failure();
  if (getDlogits().getType() != getLogits().getType())
    return emitOpError() << "expected dlogits to have the logits' type "
                         << getLogits().getType() << ", got "
                         << getDlogits().getType();
  return verifyBlockSize(*this, getBlockSize());
}

LogicalResult TokenMeanOp::verify() {
  ArrayRef<int64_t> tokens = getValues().getType().getShape();
  if (failed(verifyF32(*this, "values", getValues(), tokens)) ||
      failed(verifyLabels(*this, getLabels(), tokens)) ||
      failed(verifyF32(*this, "mean", getMean(), {})))
    return failure();
  return success();
}

LogicalResult TokenMeanGradOp::verify() {
  ArrayRef<int64_t> tokens = getLabels().getType().getShape();
  if (failed(verifyLabels(*this, getLabels(), tokens)) ||
      failed(verifyF32(*this, "dmean", getDmean(), {})) ||
      failed(verifyF32(*this, "dvalues", getDvalues(), tokens)))
    return failure();
  return verifyBlockSize(*this, getBlockSize());
}

//===----------------------------------------------------------------------===//
// KernelOpInterface
//===----------------------------------------------------------------------===//

/// Dim classes 0..rank-1 of a value's dims.
static SmallVector<int64_t> allDims(Value value) {
  return llvm::to_vector(
      llvm::seq<int64_t>(0, cast<RankedTensorType>(value.getType()).getRank()));
}

static SmallVector<int64_t> leadingDims(Value value) {
  SmallVector<int64_t> dims = allDims(value);
  dims.pop_back();
  return dims;
}

StringRef EmbeddingOp::getKernelKind() { return "embedding"; }

SmallVector<StringRef> EmbeddingOp::getValueRoles() {
  return {"table", "ids", "out"};
}

/// The dim classes of an embedding's table, ids and rows: the ids' dims
/// are classes 0..k-1, the table's V and D k and k + 1.
struct EmbeddingDims {
  SmallVector<int64_t> table, ids, rows;
};

static EmbeddingDims embeddingDims(Value ids) {
  EmbeddingDims dims;
  dims.ids = allDims(ids);
  int64_t k = static_cast<int64_t>(dims.ids.size());
  dims.table = {k, k + 1};
  dims.rows = dims.ids;
  dims.rows.push_back(k + 1);
  return dims;
}

SmallVector<SmallVector<int64_t>> EmbeddingOp::getDimClasses() {
  EmbeddingDims dims = embeddingDims(getIds());
  return {dims.table, dims.ids, dims.rows};
}

StringRef EmbeddingOp::getDimClassName(int64_t) { return ""; }

bool EmbeddingOp::hasKernelConfig() { return getBlockSize().has_value(); }

StringRef TokenOrderOp::getKernelKind() { return "token_order"; }

SmallVector<StringRef> TokenOrderOp::getValueRoles() {
  return {"ids", "order", "bounds"};
}

SmallVector<SmallVector<int64_t>> TokenOrderOp::getDimClasses() {
  SmallVector<int64_t> ids = allDims(getIds());
  return {ids, ids, {static_cast<int64_t>(ids.size())}};
}

StringRef TokenOrderOp::getDimClassName(int64_t) { return ""; }

/// One block sorts every token: there is nothing to choose.
bool TokenOrderOp::hasKernelConfig() { return true; }

StringRef EmbeddingGradOp::getKernelKind() { return "embedding_grad"; }

SmallVector<StringRef> EmbeddingGradOp::getValueRoles() {
  return {"order", "bounds", "dout", "dtable"};
}

/// The order's dims are classes 0..k-1 (the tokens'), the bounds' k, the
/// table's V and D k + 1 and k + 2.
SmallVector<SmallVector<int64_t>> EmbeddingGradOp::getDimClasses() {
  SmallVector<int64_t> tokens = allDims(getOrder());
  int64_t k = static_cast<int64_t>(tokens.size());
  SmallVector<int64_t> rows = tokens;
  rows.push_back(k + 2);
  return {tokens, {k}, rows, {k + 1, k + 2}};
}

StringRef EmbeddingGradOp::getDimClassName(int64_t) { return ""; }

bool EmbeddingGradOp::hasKernelConfig() { return getBlockSize().has_value(); }

StringRef CrossEntropyOp::getKernelKind() { return "cross_entropy"; }

SmallVector<StringRef> CrossEntropyOp::getValueRoles() {
  return {"logits", "labels", "losses", "lse"};
}

SmallVector<SmallVector<int64_t>> CrossEntropyOp::getDimClasses() {
  SmallVector<int64_t> rows = leadingDims(getLogits());
  return {allDims(getLogits()), rows, rows, rows};
}

StringRef CrossEntropyOp::getDimClassName(int64_t) { return ""; }

bool CrossEntropyOp::hasKernelConfig() { return getBlockSize().has_value(); }

StringRef CrossEntropyPartialOp::getKernelKind() {
  return "cross_entropy_partial";
}

SmallVector<StringRef> CrossEntropyPartialOp::getValueRoles() {
  return {"logits", "labels", "lse_part", "target"};
}

/// Dims of a chunk's part [1, r...]: the rows of `logits` after a free 1.
static SmallVector<int64_t> partDims(Value logits) {
  SmallVector<int64_t> dims = {-1};
  llvm::append_range(dims, leadingDims(logits));
  return dims;
}

SmallVector<SmallVector<int64_t>> CrossEntropyPartialOp::getDimClasses() {
  SmallVector<int64_t> part = partDims(getLogits());
  return {allDims(getLogits()), leadingDims(getLogits()), part, part};
}

StringRef CrossEntropyPartialOp::getDimClassName(int64_t) { return ""; }

bool CrossEntropyPartialOp::hasKernelConfig() {
  return getBlockSize().has_value();
}

StringRef CrossEntropyCombineOp::getKernelKind() {
  return "cross_entropy_combine";
}

SmallVector<StringRef> CrossEntropyCombineOp::getValueRoles() {
  return {"lse_parts", "targets", "labels", "losses", "lse"};
}

SmallVector<SmallVector<int64_t>> CrossEntropyCombineOp::getDimClasses() {
  SmallVector<int64_t> rows = allDims(getLabels());
  SmallVector<int64_t> parts = {-1};
  llvm::append_range(parts, rows);
  return {parts, parts, rows, rows, rows};
}

StringRef CrossEntropyCombineOp::getDimClassName(int64_t) { return ""; }

bool CrossEntropyCombineOp::hasKernelConfig() {
  return getBlockSize().has_value();
}

StringRef CrossEntropyGradOp::getKernelKind() { return "cross_entropy_grad"; }

SmallVector<StringRef> CrossEntropyGradOp::getValueRoles() {
  return {"logits", "labels", "lse", "dlosses", "dlogits"};
}

SmallVector<SmallVector<int64_t>> CrossEntropyGradOp::getDimClasses() {
  SmallVector<int64_t> rows = leadingDims(getLogits());
  return {allDims(getLogits()), rows, rows, rows, allDims(getLogits())};
}

StringRef CrossEntropyGradOp::getDimClassName(int64_t) { return ""; }

bool CrossEntropyGradOp::hasKernelConfig() {
  return getBlockSize().has_value();
}

StringRef TokenMeanOp::getKernelKind() { return "token_mean"; }

SmallVector<StringRef> TokenMeanOp::getValueRoles() {
  return {"values", "labels", "mean"};
}

SmallVector<SmallVector<int64_t>> TokenMeanOp::getDimClasses() {
  return {allDims(getValues()), allDims(getValues()), {}};
}

StringRef TokenMeanOp::getDimClassName(int64_t) { return ""; }

/// One block does the whole sum: there is nothing to choose.
bool TokenMeanOp::hasKernelConfig() { return true; }

StringRef TokenMeanGradOp::getKernelKind() { return "token_mean_grad"; }

SmallVector<StringRef> TokenMeanGradOp::getValueRoles() {
  return {"labels", "dmean", "dvalues"};
}

SmallVector<SmallVector<int64_t>> TokenMeanGradOp::getDimClasses() {
  return {allDims(getLabels()), {}, allDims(getLabels())};
}

StringRef TokenMeanGradOp::getDimClassName(int64_t) { return ""; }

bool TokenMeanGradOp::hasKernelConfig() { return getBlockSize().has_value(); }

//===----------------------------------------------------------------------===//
// VJPOpInterface
//===----------------------------------------------------------------------===//

bool EmbeddingOp::isDifferentiableOperand(unsigned index) { return index == 0; }

/// The rows' cotangents summed per id in f32, rounded to the table's type.
FailureOr<SmallVector<Value>>
EmbeddingOp::buildVJP(OpBuilder &builder, ValueRange resultCotangents) {
  if (resultCotangents.size() != 1)
    return emitOpError() << "expected one result cotangent, got "
                         << resultCotangents.size();
  Value dout = resultCotangents[0];
  if (!dout)
    return SmallVector<Value>{Value(), Value()};
  RankedTensorType table = getTable().getType();
  Location loc = getLoc();
  auto ids = getIds().getType();
  auto order = TokenOrderOp::create(
      builder, loc, RankedTensorType::get(ids.getShape(), builder.getI32Type()),
      RankedTensorType::get({table.getDimSize(0) + 1}, builder.getI32Type()),
      getIds());
  Value dtable = EmbeddingGradOp::create(
      builder, loc,
      RankedTensorType::get(table.getShape(), builder.getF32Type()),
      order.getOrder(), order.getBounds(), dout, /*block_size=*/IntegerAttr());
  if (!table.getElementType().isF32())
    dtable = CastOp::create(builder, loc, table, dtable, /*scale=*/FloatAttr(),
                            /*block_size=*/IntegerAttr(),
                            /*in_row_swizzle=*/IntegerAttr());
  return SmallVector<Value>{dtable, Value()};
}

bool CrossEntropyOp::isDifferentiableResult(unsigned index) {
  return index == 0;
}

bool CrossEntropyOp::isDifferentiableOperand(unsigned index) {
  return index == 0;
}

FailureOr<SmallVector<Value>>
CrossEntropyOp::buildVJP(OpBuilder &builder, ValueRange resultCotangents) {
  if (resultCotangents.size() != 2)
    return emitOpError() << "expected two result cotangents, got "
                         << resultCotangents.size();
  if (resultCotangents[1])
    return emitOpError() << "cannot differentiate through lse: the gradient "
                            "of cross_entropy takes a cotangent of losses only";
  Value dlosses = resultCotangents[0];
  if (!dlosses)
    return SmallVector<Value>{Value(), Value()};
  Value dlogits = CrossEntropyGradOp::create(
      builder, getLoc(), getLogits().getType(), getLogits(), getLabels(),
      getLse(), dlosses, getIgnoreIndexAttr(),
      /*vocab_offset=*/builder.getI64IntegerAttr(0),
      /*block_size=*/IntegerAttr());
  return SmallVector<Value>{dlogits, Value()};
}

bool LinearCrossEntropyOp::isDifferentiableResult(unsigned index) {
  return index == 0;
}

bool LinearCrossEntropyOp::isDifferentiableOperand(unsigned index) {
  return index < 2;
}

FailureOr<SmallVector<Value>>
LinearCrossEntropyOp::buildVJP(OpBuilder &builder,
                               ValueRange resultCotangents) {
  if (resultCotangents.size() != 2)
    return emitOpError() << "expected two result cotangents, got "
                         << resultCotangents.size();
  if (resultCotangents[1])
    return emitOpError() << "cannot differentiate through lse: the gradient "
                            "of linear_cross_entropy takes a cotangent of "
                            "losses only";
  Value dlosses = resultCotangents[0];
  if (!dlosses)
    return SmallVector<Value>{Value(), Value(), Value()};
  auto grad = LinearCrossEntropyGradOp::create(
      builder, getLoc(), getH().getType(), getTable().getType(), getH(),
      getTable(), getLabels(), getLse(), dlosses, getIgnoreIndexAttr());
  return SmallVector<Value>{grad.getDh(), grad.getDtable(), Value()};
}

bool TokenMeanOp::isDifferentiableOperand(unsigned index) { return index == 0; }

FailureOr<SmallVector<Value>>
TokenMeanOp::buildVJP(OpBuilder &builder, ValueRange resultCotangents) {
  if (resultCotangents.size() != 1)
    return emitOpError() << "expected one result cotangent, got "
                         << resultCotangents.size();
  Value dmean = resultCotangents[0];
  if (!dmean)
    return SmallVector<Value>{Value(), Value()};
  Value dvalues = TokenMeanGradOp::create(
      builder, getLoc(), getValues().getType(), getLabels(), dmean,
      getIgnoreIndexAttr(), /*block_size=*/IntegerAttr());
  return SmallVector<Value>{dvalues, Value()};
}
