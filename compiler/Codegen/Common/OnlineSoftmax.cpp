//===- OnlineSoftmax.cpp - The flash-attention recurrence, written once ---===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/Common/OnlineSoftmax.h"

#include "compiler/Codegen/Common/KernelEmitter.h"
#include "compiler/Codegen/Common/TileClassifier.h"
#include "dialects/attn/AttnOps.h"
#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/IRMapping.h"

#include <cmath>
#include <limits>

using namespace mlir;
using attnc::f32Constant;

namespace {
constexpr double kLn2 = 0.6931471805599453;

Value negativeInfinity(OpBuilder &b, Location loc) {
  return f32Constant(b, loc, -std::numeric_limits<double>::infinity());
}
} // namespace

attnc::ScoreModel::ScoreModel(attn::AttentionScoringOpInterface op)
    : op(op), folded(op.getScore().empty() && op.getEffectiveScale() > 0),
      bias(scaledBias(op)) {}

/// Whether `v` depends on any of `block`'s arguments `args`.
static bool readsArguments(Value v, Block &block, ArrayRef<unsigned> args) {
  SetVector<Operation *> slice;
  BackwardSliceOptions options;
  options.inclusive = true;
  Operation *def = v.getDefiningOp();
  if (!def)
    return llvm::is_contained(args, cast<BlockArgument>(v).getArgNumber());
  (void)getBackwardSlice(def, &slice, options);
  return llvm::any_of(slice, [&](Operation *sliced) {
    return llvm::any_of(sliced->getOperands(), [&](Value operand) {
      auto arg = dyn_cast<BlockArgument>(operand);
      return arg && arg.getOwner() == &block &&
             llvm::is_contained(args, arg.getArgNumber());
    });
  });
}

std::optional<attnc::ScoreModel::ScaledBias>
attnc::ScoreModel::scaledBias(attn::AttentionScoringOpInterface op) {
  int exponent;
  double scale = op.getEffectiveScale();
  if (op.getScore().empty() || scale <= 0 ||
      std::frexp(scale, &exponent) != 0.5)
    return std::nullopt;
  Block &block = op.getScore().front();
  BlockArgument score = block.getArgument(0);
  Operation *combine = block.getTerminator()->getOperand(0).getDefiningOp();
  if (!score.hasOneUse() ||
      !isa_and_present<arith::AddFOp, arith::SubFOp>(combine))
    return std::nullopt;
  Value other = combine->getOperand(1);
  if (combine->getOperand(0) != score) {
    if (isa<arith::SubFOp>(combine))
      return std::nullopt; // a - s: the score is subtracted
    other = combine->getOperand(0);
  }
  auto product = other.getDefiningOp<arith::MulFOp>();
  if (!product || readsArguments(product.getResult(), block, {0}))
    return std::nullopt;
  unsigned divided = readsArguments(product.getLhs(), block, {3, 4}) ? 1 : 0;
  return ScaledBias{combine, product, divided};
}

/// The raw score plus the region's bias with one factor divided by the
/// scale: scaling by a power of two is exact, so this is the scaled
/// score's value times 1/scale, rounded alike (fused or not). The region is
/// inlined whole for the product's operands; its own product and sum are
/// then cloned again over the divided factor (the first clones are dead).
Value attnc::ScoreModel::biasedScore(OpBuilder &b, Location loc, Value dot,
                                     ValueRange indices) const {
  SmallVector<Value> args = {dot};
  llvm::append_range(args, indices);
  IRMapping mapping;
  inlineRegionValues(b, op.getScore(), args, mapping);
  Value divided = bias->product->getOperand(bias->dividedOperand);
  mapping.map(divided, arith::MulFOp::create(
                           b, loc, mapping.lookup(divided),
                           f32Constant(b, loc, 1.0 / op.getEffectiveScale())));
  b.clone(*bias->product, mapping);
  return b.clone(*bias->combine, mapping)->getResult(0);
}

Value attnc::ScoreModel::score(OpBuilder &b, Location loc, Value dot,
                               ValueRange indices) const {
  if (folded)
    return dot;
  if (bias)
    return biasedScore(b, loc, dot, indices);
  float scale = op.getEffectiveScale();
  if (op.getScore().empty())
    return arith::MulFOp::create(b, loc, dot,
                                 f32Constant(b, loc, scale * kLog2E));
  Value scaled =
      arith::MulFOp::create(b, loc, dot, f32Constant(b, loc, scale));
  SmallVector<Value> args = {scaled};
  llvm::append_range(args, indices);
  return inlineRegion(b, op.getScore(), args);
}

Value attnc::ScoreModel::factor(OpBuilder &b, Location loc) const {
  if (folded || bias)
    return f32Constant(b, loc, op.getEffectiveScale() * kLog2E);
  return f32Constant(b, loc, op.getScore().empty() ? 1.0 : kLog2E);
}

attnc::SoftmaxUpdate attnc::updateRow(OpBuilder &b, Location loc,
                                      ScoreRows &scores, int64_t row,
                                      SoftmaxRow old, Value factor, Exp2Fn exp2,
                                      double slack) {
  Value tileMax = arith::MulFOp::create(b, loc, scores.rowMax(row), factor);
  Value newMax = arith::MaximumFOp::create(b, loc, old.max, tileMax);
  if (slack > 0.0) {
    Value bound =
        arith::AddFOp::create(b, loc, old.max, f32Constant(b, loc, slack));
    Value withinBound = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE,
                                              tileMax, bound);
    newMax = arith::SelectOp::create(b, loc, withinBound, old.max, newMax);
  }
  Value noneAllowed =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, newMax,
                            negativeInfinity(b, loc));
  Value pivot = arith::SelectOp::create(b, loc, noneAllowed,
                                        f32Constant(b, loc, 0.0), newMax);
  Value alpha = exp2(arith::SubFOp::create(b, loc, old.max, pivot));
  Value negPivot = arith::NegFOp::create(b, loc, pivot);
  Value tileSum = scores.exponentiate(row, factor, negPivot);
  Value sum = arith::AddFOp::create(
      b, loc, arith::MulFOp::create(b, loc, old.sum, alpha), tileSum);
  return {{newMax, sum}, alpha};
}

attnc::RowResult attnc::finishRow(OpBuilder &b, Location loc, SoftmaxRow row) {
  Value zero = f32Constant(b, loc, 0.0);
  Value anyAllowed =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, row.sum, zero);
  Value inverse = arith::SelectOp::create(
      b, loc, anyAllowed,
      arith::DivFOp::create(b, loc, f32Constant(b, loc, 1.0), row.sum), zero);
  Value log2Sum = arith::AddFOp::create(b, loc, row.max,
                                        math::Log2Op::create(b, loc, row.sum));
  Value natural =
      arith::MulFOp::create(b, loc, log2Sum, f32Constant(b, loc, kLn2));
  Value lse = arith::SelectOp::create(b, loc, anyAllowed, natural,
                                      negativeInfinity(b, loc));
  return {inverse, lse};
}

Value attnc::maskScore(OpBuilder &b, Location loc,
                       attn::AttentionScoringOpInterface op, Value diagonal,
                       Value score, ValueRange indices, Value inBounds,
                       bool withRegion) {
  Value allowed = inBounds;
  Value masked = hasMask(op) ? emitElementMask(b, loc, op, diagonal, indices[0],
                                               indices[1], indices[2],
                                               indices[3], withRegion)
                             : Value();
  if (masked)
    allowed = allowed
                  ? arith::AndIOp::create(b, loc, allowed, masked).getResult()
                  : masked;
  if (!allowed)
    return score;
  return arith::SelectOp::create(b, loc, allowed, score,
                                 negativeInfinity(b, loc));
}
