//===- TileClassifier.cpp - Classify attention tiles from the mask --------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/Common/TileClassifier.h"

#include "dialects/attn/AttnOps.h"
#include "lib/semantics/RegionOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"

#include <limits>

using namespace mlir;
using attnc::TileBox;
using attnc::TileClass;

namespace {

/// The range [lo, hi] an integer value takes over a tile, unless
/// `overflow` (an i1; null: never) holds: then some value on the way wrapped
/// around and the bounds say nothing.
struct Interval {
  Value lo, hi;
  Value overflow;
};

/// Whether an i1 value can be true, and whether it can be false, over a tile.
struct Truth {
  Value mayTrue, mayFalse;
};

/// Small arithmetic on SSA values, to keep the interval rules readable.
class Emitter {
public:
  Emitter(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  Value boolConst(bool v) { return arith::ConstantIntOp::create(b, loc, v, 1); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value both(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value either(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value negate(Value x) {
    return arith::XOrIOp::create(b, loc, x, boolConst(true));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }

  /// Either flag (null: false).
  Value anyOf(Value x, Value y) { return !x ? y : !y ? x : either(x, y); }

  /// x + y, x - y and x * y (64-bit), or'ing into `overflow` whether the
  /// signed result wrapped.
  Value addChecked(Value x, Value y, Value &overflow) {
    Value r = add(x, y);
    overflow = anyOf(overflow, isNegative(bitAnd(bitXor(x, r), bitXor(y, r))));
    return r;
  }
  Value subChecked(Value x, Value y, Value &overflow) {
    Value r = sub(x, y);
    overflow = anyOf(overflow, isNegative(bitAnd(bitXor(x, y), bitXor(x, r))));
    return r;
  }
  Value mulChecked(Value x, Value y, Value &overflow) {
    Type i64 = b.getI64Type();
    auto wide = arith::MulSIExtendedOp::create(b, loc, toI64(x), toI64(y));
    Value sign = arith::ShRSIOp::create(
        b, loc, wide.getLow(), arith::ConstantIntOp::create(b, loc, i64, 63));
    overflow =
        anyOf(overflow, cmp(arith::CmpIPredicate::ne, wide.getHigh(), sign));
    return mul(x, y);
  }
  Value min(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value max(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }

  Truth unknown() { return {boolConst(true), boolConst(true)}; }

  /// `t`, or unknown where `overflow` holds.
  Truth unlessOverflow(Truth t, Value overflow) {
    if (!overflow)
      return t;
    return {either(t.mayTrue, overflow), either(t.mayFalse, overflow)};
  }

  /// The truth of `x pred y` for x in `a` and y in `c`.
  Truth compare(arith::CmpIPredicate pred, Interval a, Interval c) {
    using P = arith::CmpIPredicate;
    switch (pred) {
    case P::slt:
      return {cmp(P::slt, a.lo, c.hi), cmp(P::sge, a.hi, c.lo)};
    case P::sle:
      return {cmp(P::sle, a.lo, c.hi), cmp(P::sgt, a.hi, c.lo)};
    case P::sgt:
      return compare(P::slt, c, a);
    case P::sge:
      return compare(P::sle, c, a);
    case P::eq: {
      Value overlap = both(cmp(P::sle, a.lo, c.hi), cmp(P::sle, c.lo, a.hi));
      Value samePoint =
          both(both(cmp(P::eq, a.lo, a.hi), cmp(P::eq, c.lo, c.hi)),
               cmp(P::eq, a.lo, c.lo));
      return {overlap, negate(samePoint)};
    }
    case P::ne: {
      Truth eq = compare(P::eq, a, c);
      return {eq.mayFalse, eq.mayTrue};
    }
    case P::ult:
    case P::ule:
    case P::ugt:
    case P::uge: {
      // Unsigned and signed orders agree when both sides are non-negative.
      Value zero =
          arith::ConstantOp::create(b, loc, b.getZeroAttr(a.lo.getType()));
      Value nonNegative =
          both(cmp(P::sge, a.lo, zero), cmp(P::sge, c.lo, zero));
      Truth s = compare(toSigned(pred), a, c);
      Value t = boolConst(true);
      return {select(nonNegative, s.mayTrue, t),
              select(nonNegative, s.mayFalse, t)};
    }
    }
    return unknown();
  }

  static arith::CmpIPredicate toSigned(arith::CmpIPredicate pred) {
    using P = arith::CmpIPredicate;
    switch (pred) {
    case P::ult:
      return P::slt;
    case P::ule:
      return P::sle;
    case P::ugt:
      return P::sgt;
    case P::uge:
      return P::sge;
    default:
      return pred;
    }
  }

  /// Conjunction of two truths: true only if both can be, false if either can.
  Truth conjoin(Truth x, Truth y) {
    return {both(x.mayTrue, y.mayTrue), either(x.mayFalse, y.mayFalse)};
  }

  OpBuilder &b;
  Location loc;

private:
  Value toI64(Value x) {
    return x.getType().isIndex()
               ? arith::IndexCastOp::create(b, loc, b.getI64Type(), x)
                     .getResult()
               : x;
  }
  Value bitXor(Value x, Value y) {
    return arith::XOrIOp::create(b, loc, toI64(x), toI64(y));
  }
  Value bitAnd(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value isNegative(Value x) {
    return cmp(arith::CmpIPredicate::slt, x,
               arith::ConstantIntOp::create(b, loc, b.getI64Type(), 0));
  }
};

/// The buffer capture `index` of `region`'s op is read from: its operand
/// comes from bufferization.to_tensor in a kernel function.
Value captureBuffer(Region &region, unsigned index) {
  auto op = cast<attn::AttentionScoringOpInterface>(region.getParentOp());
  return op.getCaptures()[index]
      .getDefiningOp<bufferization::ToTensorOp>()
      .getBuffer();
}

/// The element of capture `buffer` at `at`, or 0 where an index is outside
/// the buffer's shape (an unsigned compare also rejects negative indices).
Value loadCapture(OpBuilder &b, Location loc, Value buffer, ValueRange at) {
  using P = arith::CmpIPredicate;
  Value zeroIndex = arith::ConstantIndexOp::create(b, loc, 0);
  Value inBounds;
  SmallVector<Value> indices;
  // Each index falls back to 0 on its own, so that one fixed for a loop
  // (the batch, the query row) keeps its part of the address out of it.
  for (auto [d, i] : llvm::enumerate(at)) {
    Value extent = memref::DimOp::create(b, loc, buffer, d);
    Value within = arith::CmpIOp::create(b, loc, P::ult, i, extent);
    inBounds = inBounds
                   ? arith::AndIOp::create(b, loc, inBounds, within).getResult()
                   : within;
    indices.push_back(arith::SelectOp::create(b, loc, within, i, zeroIndex));
  }
  Value loaded = memref::LoadOp::create(b, loc, buffer, indices);
  Type type = loaded.getType();
  Value zero = arith::ConstantOp::create(b, loc, type, b.getZeroAttr(type));
  return arith::SelectOp::create(b, loc, inBounds, loaded, zero);
}

/// Interprets a mask region over the intervals of its index arguments.
/// Integer rules hold for `index` and i64 values, checked at run time for
/// signed overflow (a region may wrap on purpose, hashing indices); values
/// of other types are unknown.
class RegionInterpreter {
public:
  RegionInterpreter(Emitter &e, Value lane) : e(e), lane(lane) {}

  Truth run(Region &region, ArrayRef<Interval> args) {
    Block &block = region.front();
    firstCapture = args.size();
    // A loop still being built (a body builder's) has no op yet.
    for (Operation *op = e.b.getInsertionBlock()->getParentOp();
         isa_and_nonnull<scf::ForOp>(op); op = op->getParentOp())
      loops.push_back(op);
    for (auto [arg, range] : llvm::zip(block.getArguments(), args)) {
      for (Value bound : {range.lo, range.hi, range.overflow})
        hoistDefinition(bound);
      ints[arg] = range;
    }
    for (Operation &op : block.without_terminator())
      visit(&op);
    Value yielded = block.getTerminator()->getOperand(0);
    return truth(yielded);
  }

private:
  static bool isExactInteger(Type t) { return t.isIndex() || t.isInteger(64); }

  std::optional<Interval> interval(Value v) {
    auto it = ints.find(v);
    if (it == ints.end())
      return std::nullopt;
    return it->second;
  }

  Truth truth(Value v) {
    auto it = bools.find(v);
    return it == bools.end() ? e.unknown() : it->second;
  }

  /// Records the range of a binary integer op when both operands have one.
  template <typename Fn> void binary(Operation *op, Fn rule) {
    std::optional<Interval> x = interval(op->getOperand(0));
    std::optional<Interval> y = interval(op->getOperand(1));
    if (x && y && isExactInteger(op->getResult(0).getType()))
      ints[op->getResult(0)] = rule(*x, *y);
  }

  /// A compile-time positive constant divisor: its value, and its copy in
  /// the kernel (the region's own constant is not visible there).
  struct Divisor {
    int64_t value;
    Value copy;
  };
  std::optional<Divisor> positiveConstant(Value v) {
    APInt c;
    std::optional<Interval> copy = interval(v);
    if (!copy || !matchPattern(v, m_ConstantInt(&c)) || c.getSExtValue() <= 0)
      return std::nullopt;
    return Divisor{c.getSExtValue(), copy->lo};
  }

  /// The op applied to `operands` in place of its own, in the kernel.
  Value reapply(Operation *op, ValueRange operands) {
    IRMapping mapping;
    mapping.map(op->getOperands(), operands);
    return e.b.clone(*op, mapping)->getResult(0);
  }

  /// The values the interval rule of `op` reads: its operands' bounds
  /// (null where unknown or absent) and the lane.
  SmallVector<Value> ruleInputs(Operation *op) {
    SmallVector<Value> inputs{lane};
    for (Value operand : op->getOperands()) {
      if (std::optional<Interval> x = interval(operand))
        llvm::append_range(inputs, ArrayRef<Value>{x->lo, x->hi, x->overflow});
      if (auto it = bools.find(operand); it != bools.end())
        llvm::append_range(
            inputs, ArrayRef<Value>{it->second.mayTrue, it->second.mayFalse});
    }
    return inputs;
  }

  /// Whether `v` is defined in `loop`'s body. (Region::isAncestor asserts
  /// on the regions of ops still being built, which enclose kernels here.)
  static bool definedInside(Operation *loop, Value v) {
    for (Region *r = v.getParentRegion(); r;) {
      if (r == &loop->getRegion(0))
        return true;
      Operation *parent = r->getParentOp();
      r = parent ? parent->getParentRegion() : nullptr;
    }
    return false;
  }

  /// The outermost of `loops` whose body defines none of `inputs` (null
  /// values are none), or null.
  Operation *outermostLoopFreeOf(ArrayRef<Value> inputs) {
    Operation *outermost = nullptr;
    for (Operation *loop : loops) {
      bool invariant = llvm::all_of(
          inputs, [&](Value v) { return !v || !definedInside(loop, v); });
      if (!invariant)
        break;
      outermost = loop;
    }
    return outermost;
  }

  /// Moves the insertion point before the outermost of `loops` that defines
  /// none of the rule's inputs, if any.
  void placeRule(Operation *op) {
    if (Operation *loop = outermostLoopFreeOf(ruleInputs(op)))
      e.b.setInsertionPoint(loop);
  }

  /// Moves the pure ops that compute a region argument's bound `v` inside
  /// the loops (the kernel's tile arithmetic, such as a tile's last index)
  /// before the outermost loop that defines none of their operands, so that
  /// the rules reading `v` may leave those loops too.
  void hoistDefinition(Value v) {
    Operation *def = v ? v.getDefiningOp() : nullptr;
    if (!def || def->getNumRegions() != 0 || !isPure(def))
      return;
    for (Value operand : def->getOperands())
      hoistDefinition(operand);
    Operation *loop = outermostLoopFreeOf(llvm::to_vector(def->getOperands()));
    if (loop && definedInside(loop, v))
      def->moveBefore(loop);
  }

  /// Every op is a row of the region op table (the verifier admits no
  /// other); its interval rule says how it bounds its result.
  void visit(Operation *op) {
    const attnc::sem::RegionOpInfo *info =
        attnc::sem::findRegionOp(op->getName().getStringRef());
    if (!info)
      return;
    OpBuilder::InsertionGuard guard(e.b);
    placeRule(op);
    using R = attnc::sem::IntervalRule;
    switch (info->interval) {
    case R::None:
      return;
    case R::Constant:
      return constant(cast<arith::ConstantOp>(op));
    case R::Add:
    case R::Sub:
    case R::Mul:
    case R::Max:
    case R::Min:
      return arithmetic(op, info->interval);
    case R::DivByPositiveConstant:
      return monotoneDivision(op);
    case R::UnsignedDivByPositiveConstant:
      return unsignedDivision(op);
    case R::RemByPositiveConstant:
      return remainder(op);
    case R::Cast:
      return valuePreservingCast(op);
    case R::Compare:
      return compare(cast<arith::CmpIOp>(op));
    case R::And:
    case R::Or:
    case R::XOr:
      return logic(op, info->interval);
    case R::Select:
      return select(cast<arith::SelectOp>(op));
    case R::CaptureRange:
      return captureRange(cast<tensor::ExtractOp>(op));
    }
  }

  /// An integer capture read at index intervals lies between its smallest
  /// and largest element over them, which loops in the kernel find (0
  /// counts where an index leaves the capture). Read per tile, a capture
  /// indexed by rows or keys costs a tile side of loads, not a tile.
  void captureRange(tensor::ExtractOp extract) {
    Type type = extract.getType();
    SmallVector<Interval> at;
    Value overflow;
    for (Value index : extract.getIndices()) {
      std::optional<Interval> range = interval(index);
      if (!range || !type.isInteger())
        return;
      at.push_back(*range);
      overflow = e.anyOf(overflow, range->overflow);
    }
    auto arg = cast<BlockArgument>(extract.getTensor());
    Value buffer = captureBuffer(*extract->getParentRegion(),
                                 arg.getArgNumber() - firstCapture);
    unsigned width = type.getIntOrFloatBitWidth();
    auto bound = [&](APInt value) {
      return arith::ConstantOp::create(e.b, e.loc, type,
                                       e.b.getIntegerAttr(type, value))
          .getResult();
    };
    SmallVector<Value> extremes = {bound(APInt::getSignedMaxValue(width)),
                                   bound(APInt::getSignedMinValue(width))};
    SmallVector<Value> range = boxRange(buffer, at, extremes);
    ints[extract.getResult()] = {range[0], range[1], overflow};
  }

  /// The smallest and largest element of `buffer` over the box `at`, read
  /// in row-major order, kUnroll reads in flight per step. With a lane, the
  /// warp's lanes share the reads (lane l reads elements l, l + 32, ...) and
  /// a butterfly of shuffles gives every lane both extremes; without, the
  /// thread reads them all. `init` are the identities (max, min).
  SmallVector<Value> boxRange(Value buffer, ArrayRef<Interval> at,
                              ValueRange init) {
    constexpr int64_t kWarp = 32, kUnroll = 4;
    Location loc = e.loc;
    auto index = [&](int64_t v) {
      return arith::ConstantIndexOp::create(e.b, loc, v).getResult();
    };
    SmallVector<Value> extents;
    Value total = index(1);
    for (const Interval &range : at) {
      extents.push_back(e.add(e.sub(range.hi, range.lo), index(1)));
      total = e.mul(total, extents.back());
    }
    auto element = [&](Value linear) {
      SmallVector<Value> position(at.size());
      Value rest = linear;
      for (size_t d = at.size(); d-- > 0;) {
        position[d] =
            e.add(at[d].lo, arith::RemUIOp::create(e.b, loc, rest, extents[d]));
        rest = arith::DivUIOp::create(e.b, loc, rest, extents[d]);
      }
      return loadCapture(e.b, loc, buffer, position);
    };
    int64_t stride = lane ? kWarp : 1;
    auto loop = scf::ForOp::create(e.b, loc, lane ? lane : index(0), total,
                                   index(stride * kUnroll), init);
    {
      OpBuilder::InsertionGuard guard(e.b);
      e.b.setInsertionPointToStart(loop.getBody());
      Value low = loop.getRegionIterArgs()[0];
      Value high = loop.getRegionIterArgs()[1];
      for (int64_t u = 0; u < kUnroll; ++u) {
        Value linear = e.add(loop.getInductionVar(), index(u * stride));
        Value inside = e.cmp(arith::CmpIPredicate::ult, linear, total);
        Value v = element(e.select(inside, linear, index(0)));
        low = e.select(inside, e.min(low, v), low);
        high = e.select(inside, e.max(high, v), high);
      }
      scf::YieldOp::create(e.b, loc, ValueRange{low, high});
    }
    Value low = loop.getResult(0), high = loop.getResult(1);
    for (int64_t offset = lane ? kWarp / 2 : 0; offset > 0; offset /= 2) {
      auto exchange = [&](Value v) {
        return gpu::ShuffleOp::create(e.b, loc, v, offset, kWarp,
                                      gpu::ShuffleMode::XOR)
            .getShuffleResult();
      };
      low = e.min(low, exchange(low));
      high = e.max(high, exchange(high));
    }
    return {low, high};
  }

  void constant(arith::ConstantOp c) {
    Value v = c.getResult();
    if (v.getType().isInteger(1)) {
      bool on = cast<IntegerAttr>(c.getValue()).getValue().isOne();
      bools[v] = {e.boolConst(on), e.boolConst(!on)};
    } else if (isExactInteger(v.getType())) {
      Value copy = arith::ConstantOp::create(e.b, e.loc, c.getValue());
      ints[v] = {copy, copy};
    }
  }

  void arithmetic(Operation *op, attnc::sem::IntervalRule rule) {
    using R = attnc::sem::IntervalRule;
    binary(op, [&](Interval x, Interval y) {
      Value overflow = e.anyOf(x.overflow, y.overflow);
      switch (rule) {
      case R::Add: {
        Value lo = e.addChecked(x.lo, y.lo, overflow);
        return Interval{lo, e.addChecked(x.hi, y.hi, overflow), overflow};
      }
      case R::Sub: {
        Value lo = e.subChecked(x.lo, y.hi, overflow);
        return Interval{lo, e.subChecked(x.hi, y.lo, overflow), overflow};
      }
      case R::Max:
        return Interval{e.max(x.lo, y.lo), e.max(x.hi, y.hi), overflow};
      case R::Min:
        return Interval{e.min(x.lo, y.lo), e.min(x.hi, y.hi), overflow};
      default: {
        // Every product of the box lies between the corner products, none
        // of which wrapped.
        Value p0 = e.mulChecked(x.lo, y.lo, overflow);
        Value p1 = e.mulChecked(x.lo, y.hi, overflow);
        Value p2 = e.mulChecked(x.hi, y.lo, overflow);
        Value p3 = e.mulChecked(x.hi, y.hi, overflow);
        return Interval{e.min(e.min(p0, p1), e.min(p2, p3)),
                        e.max(e.max(p0, p1), e.max(p2, p3)), overflow};
      }
      }
    });
  }

  /// A division or remainder by a positive constant with an exact integer
  /// result: the dividend's interval, the divisor, and whether the dividend
  /// may be negative (where unsigned and signed forms disagree).
  struct Division {
    Interval x;
    Divisor c;
    Type type;
    Value zero, nonNegative;
  };
  std::optional<Division> division(Operation *op) {
    std::optional<Interval> x = interval(op->getOperand(0));
    std::optional<Divisor> c = positiveConstant(op->getOperand(1));
    Type type = op->getResult(0).getType();
    if (!x || !c || !isExactInteger(type))
      return std::nullopt;
    Value zero = arith::ConstantOp::create(e.b, e.loc, e.b.getZeroAttr(type));
    return Division{*x, *c, type, zero,
                    e.cmp(arith::CmpIPredicate::sge, x->lo, zero)};
  }

  /// Division by a positive constant is monotone in the dividend.
  void monotoneDivision(Operation *op) {
    if (std::optional<Division> d = division(op))
      ints[op->getResult(0)] = {reapply(op, {d->x.lo, d->c.copy}),
                                reapply(op, {d->x.hi, d->c.copy}),
                                d->x.overflow};
  }

  /// Unsigned division agrees with the signed one on non-negative values;
  /// otherwise the result may be anything.
  void unsignedDivision(Operation *op) {
    std::optional<Division> d = division(op);
    if (!d)
      return;
    Type type = d->type;
    Value min = arith::ConstantOp::create(
        e.b, e.loc,
        e.b.getIntegerAttr(type, std::numeric_limits<int64_t>::min()));
    Value max = arith::ConstantOp::create(
        e.b, e.loc,
        e.b.getIntegerAttr(type, std::numeric_limits<int64_t>::max()));
    ints[op->getResult(0)] = {
        e.select(d->nonNegative, reapply(op, {d->x.lo, d->c.copy}), min),
        e.select(d->nonNegative, reapply(op, {d->x.hi, d->c.copy}), max),
        d->x.overflow};
  }

  /// For x >= 0: x mod c stays in [lo mod c, hi mod c] when lo and hi share
  /// a quotient, and in [0, c - 1] otherwise.
  void remainder(Operation *op) {
    std::optional<Division> d = division(op);
    if (!d)
      return;
    Interval x = d->x;
    Divisor c = d->c;
    Value zero = d->zero, nonNegative = d->nonNegative;
    Value top = arith::ConstantOp::create(
        e.b, e.loc, e.b.getIntegerAttr(d->type, c.value - 1));
    Value sameQuotient =
        e.cmp(arith::CmpIPredicate::eq,
              arith::DivSIOp::create(e.b, e.loc, x.lo, c.copy),
              arith::DivSIOp::create(e.b, e.loc, x.hi, c.copy));
    Value exact = e.both(nonNegative, sameQuotient);
    Value loRem = arith::RemSIOp::create(e.b, e.loc, x.lo, c.copy);
    Value hiRem = arith::RemSIOp::create(e.b, e.loc, x.hi, c.copy);
    Value negTop = e.sub(zero, top);
    ints[op->getResult(0)] = {
        e.select(exact, loRem, e.select(nonNegative, zero, negTop)),
        e.select(exact, hiRem, top), x.overflow};
  }

  /// Between index and i64 these casts keep every value (only such values
  /// carry intervals).
  void valuePreservingCast(Operation *op) {
    std::optional<Interval> x = interval(op->getOperand(0));
    if (!x || !isExactInteger(op->getResult(0).getType()))
      return;
    ints[op->getResult(0)] = {reapply(op, {x->lo}), reapply(op, {x->hi}),
                              x->overflow};
  }

  void compare(arith::CmpIOp c) {
    std::optional<Interval> x = interval(c.getLhs());
    std::optional<Interval> y = interval(c.getRhs());
    if (x && y)
      bools[c.getResult()] =
          e.unlessOverflow(e.compare(c.getPredicate(), *x, *y),
                           e.anyOf(x->overflow, y->overflow));
  }

  void logic(Operation *op, attnc::sem::IntervalRule rule) {
    using R = attnc::sem::IntervalRule;
    if (!op->getResult(0).getType().isInteger(1))
      return;
    Truth x = truth(op->getOperand(0)), y = truth(op->getOperand(1));
    if (rule == R::And)
      bools[op->getResult(0)] = e.conjoin(x, y);
    else if (rule == R::Or)
      bools[op->getResult(0)] = {e.either(x.mayTrue, y.mayTrue),
                                 e.both(x.mayFalse, y.mayFalse)};
    else
      bools[op->getResult(0)] = {e.either(e.both(x.mayTrue, y.mayFalse),
                                          e.both(x.mayFalse, y.mayTrue)),
                                 e.either(e.both(x.mayTrue, y.mayTrue),
                                          e.both(x.mayFalse, y.mayFalse))};
  }

  void select(arith::SelectOp s) {
    Truth c = truth(s.getCondition());
    if (s.getType().isInteger(1)) {
      Truth x = truth(s.getTrueValue()), y = truth(s.getFalseValue());
      bools[s.getResult()] = {e.either(e.both(c.mayTrue, x.mayTrue),
                                       e.both(c.mayFalse, y.mayTrue)),
                              e.either(e.both(c.mayTrue, x.mayFalse),
                                       e.both(c.mayFalse, y.mayFalse))};
      return;
    }
    std::optional<Interval> x = interval(s.getTrueValue());
    std::optional<Interval> y = interval(s.getFalseValue());
    if (x && y && isExactInteger(s.getType()))
      ints[s.getResult()] = {e.min(x->lo, y->lo), e.max(x->hi, y->hi),
                             e.anyOf(x->overflow, y->overflow)};
  }

  Emitter &e;
  Value lane; // TileBox::lane
  /// The region argument of the first capture.
  unsigned firstCapture = 0;
  /// The scf.for loops around the classification, innermost first, up to
  /// the first op that is not one. A rule goes before the outermost of them
  /// that defines none of its inputs: a capture read over the rows is then
  /// read once per block, not once per key tile.
  SmallVector<Operation *> loops;
  llvm::DenseMap<Value, Interval> ints;
  llvm::DenseMap<Value, Truth> bools;
};

Value indexConstant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// `index` shifted to the shorthands' diagonal: unchanged without one.
Value onDiagonal(Emitter &e, Value index, Value diagonal) {
  return diagonal ? e.add(index, diagonal) : index;
}

} // namespace

Value attnc::diagonalOffset(OpBuilder &b, Location loc,
                            attn::AttentionScoringOpInterface op, Value seqQ,
                            Value seqK) {
  if (!op.getBottomRight())
    return Value();
  return arith::SubIOp::create(b, loc, seqK, seqQ);
}

attnc::KeyRange attnc::keyLoopBounds(OpBuilder &b, Location loc,
                                     attn::AttentionScoringOpInterface op,
                                     Value qFirst, Value qLast, Value seqK,
                                     Value diagonal, int64_t blockN) {
  Emitter e(b, loc);
  Value zero = indexConstant(b, loc, 0);
  KeyRange range{zero, seqK};
  qFirst = onDiagonal(e, qFirst, diagonal);
  Value pastLast =
      e.add(onDiagonal(e, qLast, diagonal), indexConstant(b, loc, 1));
  if (op.getCausal())
    range.end = e.min(range.end, pastLast);
  if (std::optional<int64_t> right = op.getWindowRight())
    range.end =
        e.min(range.end, e.add(pastLast, indexConstant(b, loc, *right)));
  if (std::optional<int64_t> left = op.getWindowLeft()) {
    Value first = e.max(zero, e.sub(qFirst, indexConstant(b, loc, *left)));
    Value tile = indexConstant(b, loc, blockN);
    range.begin = e.mul(arith::DivUIOp::create(b, loc, first, tile), tile);
  }
  // Rows above a bottom-right diagonal that starts left of key 0 see no key.
  if (diagonal)
    range.end = e.max(range.end, range.begin);
  return range;
}

attnc::KeyRange attnc::queryLoopBounds(OpBuilder &b, Location loc,
                                       attn::AttentionScoringOpInterface op,
                                       Value kFirst, Value kLast, Value seqQ,
                                       Value diagonal, int64_t blockM) {
  Emitter e(b, loc);
  Value zero = indexConstant(b, loc, 0);
  KeyRange range{zero, seqQ};
  // With r = i + diagonal: causal: r >= j; window_right: r >= j - right;
  // window_left: r <= j + left.
  auto toRow = [&](Value r) { return diagonal ? e.sub(r, diagonal) : r; };
  Value first;
  if (op.getCausal())
    first = diagonal ? e.max(zero, toRow(kFirst)) : kFirst;
  if (std::optional<int64_t> right = op.getWindowRight()) {
    Value lowered =
        e.max(zero, toRow(e.sub(kFirst, indexConstant(b, loc, *right))));
    first = first ? e.max(first, lowered) : lowered;
  }
  if (first) {
    Value tile = indexConstant(b, loc, blockM);
    range.begin =
        e.min(seqQ, e.mul(arith::DivUIOp::create(b, loc, first, tile), tile));
  }
  if (std::optional<int64_t> left = op.getWindowLeft())
    range.end =
        e.min(seqQ, toRow(e.add(kLast, indexConstant(b, loc, *left + 1))));
  if (diagonal)
    range.end = e.max(range.end, range.begin);
  return range;
}

bool attnc::hasMask(attn::AttentionScoringOpInterface op) {
  return op.getCausal() || op.getWindowLeft() || op.getWindowRight() ||
         !op.getMask().empty();
}

TileClass attnc::classifyTile(OpBuilder &b, Location loc,
                              attn::AttentionScoringOpInterface op,
                              const TileBox &box) {
  using P = arith::CmpIPredicate;
  Emitter e(b, loc);
  Interval rows{box.qFirst, box.qLast};
  Interval keys{box.kFirst, box.kLast};
  // The shorthands compare keys with rows shifted to their diagonal.
  Value qFirst = onDiagonal(e, box.qFirst, box.diagonal);
  Value qLast = onDiagonal(e, box.qLast, box.diagonal);
  Truth all = {e.boolConst(true), e.boolConst(false)};
  if (op.getCausal())
    all = e.conjoin(all, e.compare(P::sle, keys, {qFirst, qLast}));
  if (std::optional<int64_t> left = op.getWindowLeft()) {
    // r - k over the tile spans [qFirst - kLast, qLast - kFirst].
    Interval distance{e.sub(qFirst, box.kLast), e.sub(qLast, box.kFirst)};
    Value bound = indexConstant(b, loc, *left);
    all = e.conjoin(all, e.compare(P::sle, distance, {bound, bound}));
  }
  if (std::optional<int64_t> right = op.getWindowRight()) {
    Interval distance{e.sub(box.kFirst, qLast), e.sub(box.kLast, qFirst)};
    Value bound = indexConstant(b, loc, *right);
    all = e.conjoin(all, e.compare(P::sle, distance, {bound, bound}));
  }
  Value regionMayBlock;
  if (!op.getMask().empty()) {
    RegionInterpreter interpreter(e, box.lane);
    Interval batch{box.batch, box.batch};
    Interval head{box.head, box.headLast ? box.headLast : box.head};
    Truth region = interpreter.run(op.getMask(), {batch, head, rows, keys});
    regionMayBlock = region.mayFalse;
    all = e.conjoin(all, region);
  }
  return {all.mayTrue, all.mayFalse, regionMayBlock};
}

/// Integer division `op` (cloned, at the builder's insertion point) with
/// attnc's meaning of what MLIR leaves undefined (sem::isIntegerDivision):
/// the divisor 1 where it is 0, or -1 under the smallest dividend (signed).
/// The host would trap on them.
static void guardDivisor(OpBuilder &b, Operation *op) {
  using P = arith::CmpIPredicate;
  Location loc = op->getLoc();
  Value dividend = op->getOperand(0), divisor = op->getOperand(1);
  Type type = divisor.getType();
  auto constant = [&](const APInt &value) {
    return arith::ConstantOp::create(b, loc, type,
                                     b.getIntegerAttr(type, value))
        .getResult();
  };
  unsigned width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
  Value one = constant(APInt(width, 1));
  Value trap =
      arith::CmpIOp::create(b, loc, P::eq, divisor, constant(APInt(width, 0)));
  if (!isa<arith::DivUIOp, arith::RemUIOp>(op)) {
    Value overflow = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, P::eq, dividend,
                              constant(APInt::getSignedMinValue(width))),
        arith::CmpIOp::create(b, loc, P::eq, divisor,
                              constant(APInt::getAllOnes(width))));
    trap = arith::OrIOp::create(b, loc, trap, overflow);
  }
  op->setOperand(1, arith::SelectOp::create(b, loc, trap, one, divisor));
}

/// Whether integer division `op` may trap: its divisor is not a constant
/// other than 0 and -1.
static bool mayTrap(Operation &op) {
  const attnc::sem::RegionOpInfo *info =
      attnc::sem::findRegionOp(op.getName().getStringRef());
  APInt divisor;
  return info && attnc::sem::isIntegerDivision(info->opcode) &&
         (!matchPattern(op.getOperand(1), m_ConstantInt(&divisor)) ||
          divisor.isZero() || divisor.isAllOnes());
}

static bool isShift(Operation &op) {
  const attnc::sem::RegionOpInfo *info =
      attnc::sem::findRegionOp(op.getName().getStringRef());
  return info && attnc::sem::isShift(info->opcode);
}

/// The result of shift `shift` (cloned) with attnc's meaning of an amount
/// of the bit width or more (sem::isShift): every bit shifted out. LLVM
/// would give poison.
static Value defineWideShift(OpBuilder &b, Operation *shift) {
  using P = arith::CmpIPredicate;
  Location loc = shift->getLoc();
  Value value = shift->getOperand(0), amount = shift->getOperand(1);
  Type type = amount.getType();
  unsigned width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
  auto constant = [&](uint64_t v) {
    return arith::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, v))
        .getResult();
  };
  Value wide = arith::CmpIOp::create(b, loc, P::uge, amount, constant(width));
  Value filled =
      isa<arith::ShRSIOp>(shift)
          ? arith::ShRSIOp::create(b, loc, value, constant(width - 1))
                .getResult()
          : constant(0);
  return arith::SelectOp::create(b, loc, wide, filled, shift->getResult(0));
}

Value attnc::inlineRegion(OpBuilder &b, Region &region, ValueRange args) {
  return inlineRegionValues(b, region, args).front();
}

SmallVector<Value> attnc::inlineRegionValues(OpBuilder &b, Region &region,
                                             ValueRange args) {
  IRMapping mapping;
  return inlineRegionValues(b, region, args, mapping);
}

SmallVector<Value> attnc::inlineRegionValues(OpBuilder &b, Region &region,
                                             ValueRange args,
                                             IRMapping &mapping) {
  Block &block = region.front();
  mapping.map(block.getArguments().take_front(args.size()), args);
  for (Operation &op : block.without_terminator()) {
    if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
      auto arg = cast<BlockArgument>(extract.getTensor());
      Value buffer = captureBuffer(region, arg.getArgNumber() - args.size());
      SmallVector<Value> at;
      for (Value index : extract.getIndices())
        at.push_back(mapping.lookup(index));
      mapping.map(extract.getResult(),
                  loadCapture(b, extract.getLoc(), buffer, at));
      continue;
    }
    if (isShift(op)) {
      Operation *clone = b.clone(op, mapping);
      mapping.map(op.getResult(0), defineWideShift(b, clone));
      continue;
    }
    if (mayTrap(op)) {
      Operation *clone = b.clone(op, mapping);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(clone);
      guardDivisor(b, clone);
      continue;
    }
    b.clone(op, mapping);
  }
  return llvm::map_to_vector(block.getTerminator()->getOperands(),
                             [&](Value v) { return mapping.lookup(v); });
}

Value attnc::emitElementMask(OpBuilder &b, Location loc,
                             attn::AttentionScoringOpInterface op,
                             Value diagonal, Value batch, Value head,
                             Value qIdx, Value kIdx, bool withRegion) {
  using P = arith::CmpIPredicate;
  Emitter e(b, loc);
  Value row = onDiagonal(e, qIdx, diagonal);
  Value allowed;
  auto conjoin = [&](Value term) {
    allowed = allowed ? e.both(allowed, term) : term;
  };
  if (op.getCausal())
    conjoin(e.cmp(P::sle, kIdx, row));
  if (std::optional<int64_t> left = op.getWindowLeft())
    conjoin(e.cmp(P::sle, e.sub(row, kIdx), indexConstant(b, loc, *left)));
  if (std::optional<int64_t> right = op.getWindowRight())
    conjoin(e.cmp(P::sle, e.sub(kIdx, row), indexConstant(b, loc, *right)));
  if (!op.getMask().empty() && withRegion)
    conjoin(inlineRegion(b, op.getMask(), {batch, head, qIdx, kIdx}));
  return allowed;
}
