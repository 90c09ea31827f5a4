//===- RegionTangents.cpp - Forward-mode derivatives of region ops --------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "dialects/attn/RegionTangents.h"

#include "lib/semantics/RegionOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

#include <cmath>
#include <limits>

using namespace mlir;
using attnc::sem::GradRule;
using attnc::sem::Opcode;

namespace {

constexpr double kLn2 = 0.69314718055994530942;
constexpr double kTwoOverSqrtPi = 1.12837916709551257390;

/// Emits clones and tangents at `b`'s insertion point.
class TangentBuilder {
public:
  TangentBuilder(OpBuilder &b, Location loc, StringRef wrt)
      : b(b), loc(loc), wrt(wrt) {}

  /// Clones `op` and sets the tangent of its result; fails with a located
  /// error for an op that blocks the derivative.
  LogicalResult apply(Operation &op, IRMapping &mapping);
  Value tangentOf(Value v) const { return tangents.lookup(v); }
  void seed(Value v, Value tangent) { tangents[v] = tangent; }

private:
  Value constant(Type type, double value) {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
  }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  /// x · t, with a null t meaning zero.
  Value scaled(Value factor, Value t) { return t ? mul(factor, t) : Value(); }
  Value sum(Value x, Value y) { return !x ? y : !y ? x : add(x, y); }
  Value orZero(Value t, Type type) { return t ? t : constant(type, 0.0); }

  Value unaryDerivative(Opcode opcode, Value x, Value result);
  Value smoothTangent(Operation &op, Opcode opcode, ValueRange x,
                      ArrayRef<Value> t, Value result);
  Value quotientTangent(ValueRange x, ArrayRef<Value> t, Value result);

  OpBuilder &b;
  Location loc;
  StringRef wrt;
  llvm::DenseMap<Value, Value> tangents;
};

/// f'(x) of a one-operand float op, given x and f(x).
Value TangentBuilder::unaryDerivative(Opcode opcode, Value x, Value result) {
  Type type = x.getType();
  Value one = constant(type, 1.0);
  switch (opcode) {
  case Opcode::NegF:
    return constant(type, -1.0);
  case Opcode::Tanh:
    return sub(one, mul(result, result));
  case Opcode::Exp:
    return result;
  case Opcode::Exp2:
    return mul(result, constant(type, kLn2));
  case Opcode::Expm1:
    return add(result, one);
  case Opcode::Log:
    return div(one, x);
  case Opcode::Log2:
    return div(one, mul(x, constant(type, kLn2)));
  case Opcode::Log1p:
    return div(one, add(one, x));
  case Opcode::Erf:
    return mul(
        constant(type, kTwoOverSqrtPi),
        math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, mul(x, x))));
  case Opcode::Sin:
    return math::CosOp::create(b, loc, x);
  case Opcode::Cos:
    return arith::NegFOp::create(b, loc, math::SinOp::create(b, loc, x));
  case Opcode::Atan:
    return div(one, add(one, mul(x, x)));
  case Opcode::AbsF:
    return math::CopySignOp::create(b, loc, one, x);
  case Opcode::Sqrt:
    return div(constant(type, 0.5), result);
  case Opcode::Rsqrt: // -x^(-3/2) / 2
    return mul(constant(type, -0.5), mul(result, mul(result, result)));
  default:
    return Value();
  }
}

/// The tangent of x0 / x1: (t0 - result t1) / x1, and 0 where x1 is
/// infinite. There the quotient is 0 (or NaN, for an infinite x0) and so
/// is its derivative, where the rule would give inf / inf: x / (1 +
/// exp(-x)) at x < -88 in f32, SiLU as front ends write it. A finite
/// constant divisor (a scale, a softcap) needs no check.
Value TangentBuilder::quotientTangent(ValueRange x, ArrayRef<Value> t,
                                      Value result) {
  Value rule = div(
      orZero(sum(t[0], t[1] ? arith::NegFOp::create(b, loc, mul(result, t[1]))
                            : Value()),
             x[0].getType()),
      x[1]);
  FloatAttr divisor;
  if (matchPattern(x[1], m_Constant(&divisor)) &&
      std::isfinite(divisor.getValueAsDouble()))
    return rule;
  Value infinite = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OEQ, math::AbsFOp::create(b, loc, x[1]),
      constant(x[1].getType(), std::numeric_limits<double>::infinity()));
  return arith::SelectOp::create(b, loc, infinite,
                                 constant(x[1].getType(), 0.0), rule);
}

/// The tangent of a Smooth op's result from its operands `x`, their
/// tangents `t` (null: zero) and its result.
Value TangentBuilder::smoothTangent(Operation &op, Opcode opcode, ValueRange x,
                                    ArrayRef<Value> t, Value result) {
  using P = arith::CmpFPredicate;
  auto choose = [&](P predicate) {
    Value first = arith::CmpFOp::create(b, loc, predicate, x[0], x[1]);
    return arith::SelectOp::create(b, loc, first, orZero(t[0], x[0].getType()),
                                   orZero(t[1], x[1].getType()))
        .getResult();
  };
  switch (opcode) {
  case Opcode::AddF:
    return sum(t[0], t[1]);
  case Opcode::SubF:
    return sum(t[0], t[1] ? arith::NegFOp::create(b, loc, t[1]) : Value());
  case Opcode::MulF:
    return sum(scaled(x[1], t[0]), scaled(x[0], t[1]));
  case Opcode::DivF: // (t0 - result t1) / x1
    return quotientTangent(x, t, result);
  case Opcode::RemF: // x0 - trunc(x0 / x1) x1; trunc(x0 / x1) = (x0 - r) / x1
    return sum(t[0], t[1] ? arith::NegFOp::create(
                                b, loc, mul(div(sub(x[0], result), x[1]), t[1]))
                          : Value());
  case Opcode::MaximumF:
  case Opcode::MaxNumF:
    return choose(P::OGE);
  case Opcode::MinimumF:
  case Opcode::MinNumF:
    return choose(P::OLE);
  case Opcode::PowF: // y x^(y-1) t0 + log(x) x^y t1
    return sum(scaled(mul(x[1], math::PowFOp::create(
                                    b, loc, x[0],
                                    sub(x[1], constant(x[1].getType(), 1.0)))),
                      t[0]),
               scaled(mul(math::LogOp::create(b, loc, x[0]), result), t[1]));
  case Opcode::CopySign: { // sign(x0) sign(x1) t0
    Value one = constant(x[0].getType(), 1.0);
    return scaled(mul(math::CopySignOp::create(b, loc, one, x[0]),
                      math::CopySignOp::create(b, loc, one, x[1])),
                  t[0]);
  }
  case Opcode::Fma:
    return sum(sum(scaled(x[1], t[0]), scaled(x[0], t[1])), t[2]);
  case Opcode::FloatToFloat: { // extf / truncf: the tangent converts alike
    IRMapping operandToTangent;
    operandToTangent.map(op.getOperand(0), t[0]);
    return b.clone(op, operandToTangent)->getResult(0);
  }
  default:
    return scaled(unaryDerivative(opcode, x[0], result), t[0]);
  }
}

/// Whether smoothTangent and unaryDerivative have a rule for `opcode`; the
/// table's Smooth rows must all be here (test/Autodiff/differentiate-score
/// covers each).
bool hasSmoothRule(Opcode opcode) {
  switch (opcode) {
  case Opcode::AddF:
  case Opcode::SubF:
  case Opcode::MulF:
  case Opcode::DivF:
  case Opcode::RemF:
  case Opcode::MaximumF:
  case Opcode::MaxNumF:
  case Opcode::MinimumF:
  case Opcode::MinNumF:
  case Opcode::PowF:
  case Opcode::CopySign:
  case Opcode::Fma:
  case Opcode::FloatToFloat:
  case Opcode::NegF:
  case Opcode::Tanh:
  case Opcode::Exp:
  case Opcode::Exp2:
  case Opcode::Expm1:
  case Opcode::Log:
  case Opcode::Log2:
  case Opcode::Log1p:
  case Opcode::Erf:
  case Opcode::Sin:
  case Opcode::Cos:
  case Opcode::Atan:
  case Opcode::AbsF:
  case Opcode::Sqrt:
  case Opcode::Rsqrt:
    return true;
  default:
    return false;
  }
}

LogicalResult TangentBuilder::apply(Operation &op, IRMapping &mapping) {
  Operation *clone = b.clone(op, mapping);
  SmallVector<Value> operandTangents;
  for (Value operand : op.getOperands())
    operandTangents.push_back(tangents.lookup(mapping.lookup(operand)));
  if (llvm::all_of(operandTangents, [](Value t) { return !t; }))
    return success();
  // The verifier admitted only ops of the region op table.
  const attnc::sem::RegionOpInfo *info =
      attnc::sem::findRegionOp(op.getName().getStringRef());
  Value result = clone->getResult(0);
  switch (info->grad) {
  case GradRule::NoTangent:
    return success();
  case GradRule::Select:
    tangents[result] =
        arith::SelectOp::create(b, loc, clone->getOperand(0),
                                orZero(operandTangents[1], result.getType()),
                                orZero(operandTangents[2], result.getType()));
    return success();
  case GradRule::Blocked:
    return op.emitOpError() << "is piecewise constant in " << wrt
                            << ", so the gradient through it is not defined";
  case GradRule::Smooth:
    break;
  }
  if (!hasSmoothRule(info->opcode))
    return op.emitOpError() << "has no derivative rule in RegionTangents";
  tangents[result] = smoothTangent(op, info->opcode, clone->getOperands(),
                                   operandTangents, result);
  return success();
}

} // namespace

FailureOr<SmallVector<Value>>
mlir::attn::cloneWithTangents(OpBuilder &b, Block &source, IRMapping &mapping,
                              ArrayRef<std::pair<BlockArgument, Value>> seeds,
                              ValueRange values, StringRef wrt) {
  TangentBuilder tangents(b, source.getTerminator()->getLoc(), wrt);
  for (auto [arg, tangent] : seeds)
    tangents.seed(mapping.lookup(Value(arg)), tangent);
  for (Operation &op : source.without_terminator())
    if (failed(tangents.apply(op, mapping)))
      return failure();
  return llvm::map_to_vector(values, [&](Value value) {
    return tangents.tangentOf(mapping.lookupOrDefault(value));
  });
}
