//===- MatmulOp.cpp - attn.matmul -----------------------------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The matrix product of linear layers and of their weights' gradients: its
// shape rules, its dims for program formation and its gradient rule, which
// is two more matmuls.
//
//===----------------------------------------------------------------------===//

#include "dialects/attn/AttnOps.h"
#include "lib/semantics/Activations.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::attn;

//===----------------------------------------------------------------------===//
// Verifier
//===----------------------------------------------------------------------===//

static bool isMatmulElementType(Type type) {
  return type.isF32() || type.isF16() || type.isBF16();
}

LogicalResult mlir::attn::verifyExtents(Operation *op, StringRef name,
                                        RankedTensorType type) {
  for (auto [dim, extent] : llvm::enumerate(type.getShape()))
    if (!ShapedType::isDynamic(extent) && (extent < 1 || extent > kMaxExtent))
      return op->emitOpError()
             << name << " dim " << dim << " is " << extent
             << "; static dims must be in [1, " << kMaxExtent << "]";
  return success();
}

/// The shapes `b` and the result must have given `a` (dynamic where `a`
/// does not decide them): the linear layer's, or the row contraction's.
static std::pair<SmallVector<int64_t>, SmallVector<int64_t>>
expectedShapes(MatmulOp op) {
  ArrayRef<int64_t> a = op.getA().getType().getShape();
  ArrayRef<int64_t> b = op.getB().getType().getShape();
  int64_t n = b.empty() ? ShapedType::kDynamic : b.back();
  if (op.getTransposeA()) {
    SmallVector<int64_t> bShape(a.drop_back());
    bShape.push_back(n);
    return {bShape, {a.back(), n}};
  }
  int64_t columns = b.size() == 2 && op.getTransposeB() ? b[0] : n;
  SmallVector<int64_t> bShape = {a.back(), columns};
  if (op.getTransposeB())
    std::swap(bShape[0], bShape[1]);
  SmallVector<int64_t> out(a.drop_back());
  out.push_back(columns);
  return {bShape, out};
}

std::string mlir::attn::shapeString(ArrayRef<int64_t> shape) {
  std::string text = "[";
  for (auto [i, extent] : llvm::enumerate(shape))
    text += (i ? ", " : "") + (ShapedType::isDynamic(extent)
                                   ? std::string("?")
                                   : std::to_string(extent));
  return text + "]";
}

LogicalResult MatmulOp::verify() {
  RankedTensorType a = getA().getType(), b = getB().getType(),
                   out = getOut().getType();
  Type element = a.getElementType();
  if (!isMatmulElementType(element))
    return emitOpError() << "expected a to have f32, f16 or bf16 elements, got "
                         << a;
  if (b.getElementType() != element)
    return emitOpError() << "expected b to have a's element type " << element
                         << ", got " << b;
  if (out.getElementType() != element && !out.getElementType().isF32())
    return emitOpError() << "expected the result element type to be " << element
                         << " or f32, got " << out;
  if (a.getRank() < 2)
    return emitOpError() << "expected a to have rows and a column dim (rank 2 "
                            "or more), got "
                         << a;
  if (getTransposeA() && getTransposeB())
    return emitOpError() << "expected at most one of transpose_a and "
                            "transpose_b";
  for (auto [name, type] : {std::pair{"a", a}, {"b", b}, {"result", out}})
    if (failed(verifyExtents(*this, name, type)))
      return failure();
  auto [bShape, outShape] = expectedShapes(*this);
  StringRef form = getTransposeA()   ? "the rows of a, then N"
                   : getTransposeB() ? "[N, K] with K = a's last dim"
                                     : "[K, N] with K = a's last dim";
  if (failed(verifyCompatibleShape(b.getShape(), bShape))) {
    // N is b's own: a shape that gets K wrong says nothing about it.
    bShape[getTransposeA() || !getTransposeB() ? bShape.size() - 1 : 0] =
        ShapedType::kDynamic;
    return emitOpError() << "expected b of shape " << shapeString(bShape)
                         << " (" << form << "), got " << b;
  }
  if (failed(verifyCompatibleShape(out.getShape(), outShape)))
    return emitOpError() << "expected a result of shape "
                         << shapeString(outShape) << ", got " << out;
  if (failed(verifyBias()) || failed(verifyAddend()) ||
      failed(verifyActivation()))
    return failure();
  if (std::optional<ArrayRef<int64_t>> tile = getTile())
    if (tile->size() != 2 ||
        llvm::any_of(*tile, [](int64_t t) { return t < 1 || t > 1024; }))
      return emitOpError() << "expected tile to be [rows, columns] in [1, "
                              "1024], got "
                           << getTileAttr();
  if (std::optional<StringRef> library = getLibrary())
    if (*library != "cublaslt")
      return emitOpError() << "unknown library '" << *library
                           << "' (expected cublaslt)";
  return success();
}

/// A linear layer's bias: [N] of the result's element type.
LogicalResult MatmulOp::verifyBias() {
  Value bias = getBias();
  if (!bias)
    return success();
  if (getTransposeA())
    return emitOpError() << "expected no bias on a row contraction "
                            "(transpose_a)";
  auto type = cast<RankedTensorType>(bias.getType());
  RankedTensorType out = getOut().getType();
  if (type.getElementType() != out.getElementType() ||
      failed(verifyCompatibleShape(type.getShape(), {out.getShape().back()})))
    return emitOpError() << "expected a bias of shape "
                         << shapeString({out.getShape().back()}) << " and "
                         << out.getElementType() << " elements, got " << type;
  return verifyExtents(*this, "bias", type);
}

/// An addend: the result's own type.
LogicalResult MatmulOp::verifyAddend() {
  Value addend = getAddend();
  if (!addend)
    return success();
  RankedTensorType out = getOut().getType();
  auto type = cast<RankedTensorType>(addend.getType());
  if (type.getElementType() != out.getElementType() ||
      failed(verifyCompatibleShape(type, out)))
    return emitOpError() << "expected an addend of the result's type " << out
                         << ", got " << type;
  return success();
}

/// An activation: a known one, on a linear layer without an addend
/// (cuBLASLt applies its activation after adding C).
LogicalResult MatmulOp::verifyActivation() {
  std::optional<StringRef> activation = getActivation();
  if (!activation)
    return success();
  if (*activation != kGeluTanh)
    return emitOpError() << "unknown activation '" << *activation
                         << "' (expected " << kGeluTanh << ")";
  if (getTransposeA())
    return emitOpError() << "expected no activation on a row contraction "
                            "(transpose_a)";
  if (getAddend())
    return emitOpError() << "expected an activation or an addend, not both";
  return success();
}

Value mlir::attn::buildMatmulActivation(OpBuilder &b, Location loc,
                                        StringRef activation, Value x) {
  assert(activation == kGeluTanh && "verified activation");
  auto constant = [&](double v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  };
  // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
  Value cube =
      arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, x, x), x);
  Value inner = arith::AddFOp::create(
      b, loc, x,
      arith::MulFOp::create(b, loc, constant(attnc::sem::kGeluTanhCubic),
                            cube));
  Value tanh = math::TanhOp::create(
      b, loc,
      arith::MulFOp::create(b, loc, constant(attnc::sem::kGeluTanhScale),
                            inner));
  Value onePlus = arith::AddFOp::create(b, loc, constant(1.0), tanh);
  return arith::MulFOp::create(
      b, loc, arith::MulFOp::create(b, loc, constant(0.5), x), onePlus);
}

//===----------------------------------------------------------------------===//
// KernelOpInterface
//===----------------------------------------------------------------------===//

StringRef MatmulOp::getKernelKind() { return "matmul"; }

/// A linear layer's input and weight, or the two sides of a row
/// contraction.
SmallVector<StringRef> MatmulOp::getValueRoles() {
  SmallVector<StringRef> roles = {"x", "w"};
  if (getTransposeA())
    roles = {"a", "b"};
  if (getBias())
    roles.push_back("bias");
  if (getAddend())
    roles.push_back("addend");
  roles.push_back("out");
  return roles;
}

/// The rows of a are classes 0..r-1, a's last dim r, the other dim of b
/// r + 1.
SmallVector<SmallVector<int64_t>> MatmulOp::getDimClasses() {
  int64_t rows = getA().getType().getRank() - 1;
  SmallVector<int64_t> leading = llvm::to_vector(llvm::seq<int64_t>(0, rows));
  auto withLast = [&](int64_t last) {
    SmallVector<int64_t> dims = leading;
    dims.push_back(last);
    return dims;
  };
  SmallVector<SmallVector<int64_t>> classes;
  if (getTransposeA()) {
    classes = {withLast(rows), withLast(rows + 1)};
  } else {
    SmallVector<int64_t> weight = {rows, rows + 1};
    if (getTransposeB())
      std::swap(weight[0], weight[1]);
    classes = {withLast(rows), weight};
  }
  SmallVector<int64_t> out = getTransposeA()
                                 ? SmallVector<int64_t>{rows, rows + 1}
                                 : withLast(rows + 1);
  if (getBias())
    classes.push_back({rows + 1});
  if (getAddend())
    classes.push_back(out);
  classes.push_back(out);
  return classes;
}

StringRef MatmulOp::getDimClassName(int64_t) { return ""; }

bool MatmulOp::hasKernelConfig() {
  return getTile().has_value() || getLibrary().has_value();
}

//===----------------------------------------------------------------------===//
// EpilogueAddendOpInterface
//===----------------------------------------------------------------------===//

// An activation comes after the sum: no addend then.
Value MatmulOp::getAddendTarget() {
  return getActivation() ? Value() : getOut();
}

Value MatmulOp::getEpilogueAddend() { return getAddend(); }

Operation *MatmulOp::cloneWithAddend(OpBuilder &builder, Value addend) {
  return MatmulOp::create(builder, getLoc(), getOut().getType(), getA(), getB(),
                          getBias(), addend, getTransposeAAttr(),
                          getTransposeBAttr(), getTileAttr(), getLibraryAttr(),
                          getActivationAttr());
}

//===----------------------------------------------------------------------===//
// VJPOpInterface
//===----------------------------------------------------------------------===//

/// A matmul of the gradient rules: no addend, activation or kernel config.
static Value buildProduct(OpBuilder &builder, Location loc, Type type, Value a,
                          Value b, Value bias, bool transposeA,
                          bool transposeB) {
  UnitAttr unit = builder.getUnitAttr();
  return MatmulOp::create(builder, loc, type, a, b, bias, /*addend=*/Value(),
                          transposeA ? unit : UnitAttr(),
                          transposeB ? unit : UnitAttr(),
                          /*tile=*/DenseI64ArrayAttr(),
                          /*library=*/StringAttr(),
                          /*activation=*/StringAttr());
}

/// For out = A B (A = a or its rows transposed, B = b or b transposed):
/// dA = dout B^T and dB = A^T dout, each a matmul in the operand's type; a
/// bias's gradient is the row sum of dout, an addend's dout itself.
FailureOr<SmallVector<Value>> MatmulOp::buildVJP(OpBuilder &builder,
                                                 ValueRange resultCotangents) {
  if (resultCotangents.size() != 1)
    return emitOpError() << "expected one result cotangent, got "
                         << resultCotangents.size();
  Value dout = resultCotangents.front();
  if (!dout)
    return SmallVector<Value>(getNumOperands());
  if (dout.getType() != getOut().getType())
    return emitOpError() << "expected the result cotangent to be "
                         << getOut().getType() << ", got " << dout.getType();
  if (std::optional<StringRef> activation = getActivation())
    return buildUnfusedVJP(builder, *activation, dout);
  Location loc = getLoc();
  auto matmul = [&](Value like, Value x, Value y, bool transposeA,
                    bool transposeB) -> Value {
    return buildProduct(builder, loc, like.getType(), x, y, /*bias=*/Value(),
                        transposeA, transposeB);
  };
  Value a = getA(), b = getB();
  SmallVector<Value> grads;
  if (getTransposeA()) {
    grads = {matmul(a, b, dout, false, true), matmul(b, a, dout, false, false)};
  } else {
    grads.push_back(matmul(a, dout, b, false, !getTransposeB()));
    grads.push_back(getTransposeB() ? matmul(b, dout, a, true, false)
                                    : matmul(b, a, dout, true, false));
  }
  if (Value bias = getBias())
    grads.push_back(SumRowsOp::create(builder, loc, bias.getType(), dout,
                                      /*squares=*/UnitAttr(),
                                      /*block_size=*/IntegerAttr()));
  if (getAddend())
    grads.push_back(dout);
  return grads;
}

/// With an activation, the gradient of the unfused form: the product
/// without it, the activation as an attn.elementwise of it (whose rule
/// gives the product's cotangent), then the product's own rule.
FailureOr<SmallVector<Value>> MatmulOp::buildUnfusedVJP(OpBuilder &builder,
                                                        StringRef activation,
                                                        Value dout) {
  Location loc = getLoc();
  Value z = buildProduct(builder, loc, getOut().getType(), getA(), getB(),
                         getBias(), getTransposeA(), getTransposeB());
  auto applied =
      ElementwiseOp::create(builder, loc, TypeRange{dout.getType()},
                            ValueRange{z}, /*block_size=*/IntegerAttr());
  {
    OpBuilder::InsertionGuard guard(builder);
    Block *body = builder.createBlock(&applied.getBody());
    Value x = body->addArgument(builder.getF32Type(), loc);
    YieldOp::create(builder, loc,
                    buildMatmulActivation(builder, loc, activation, x));
  }
  FailureOr<SmallVector<Value>> dproduct =
      cast<VJPOpInterface>(*applied).buildVJP(builder, {dout});
  applied.erase();
  if (failed(dproduct))
    return failure();
  return cast<MatmulOp>(z.getDefiningOp()).buildVJP(builder, (*dproduct)[0]);
}
