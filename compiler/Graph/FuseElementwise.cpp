//===- FuseElementwise.cpp - Element-wise tensor code to fused kernels ----===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Front ends write element-wise work as upstream arith and math ops on
// tensors:
//
//   %g = math.tanh %x : tensor<?x2048xf32>
//   %y = arith.mulf %g, %r : tensor<?x2048xf32>
//
// Each such op whose scalar form is a row of the region op table becomes an
// attn.elementwise (splat constant operands, dense or tensor.splat, move
// into its body), and an
// attn.elementwise whose result only one attn.elementwise reads is fused
// into that reader, so a chain is one kernel:
//
//   %y = attn.elementwise %x, %r : ... {
//   ^bb0(%a: f32, %b: f32):
//     %t = math.tanh %a : f32
//     %m = arith.mulf %t, %b : f32
//     attn.yield %m : f32
//   }
//
// A fused intermediate of a 16-bit type is rounded to it in the body
// (truncf, then extf), so fusion never changes a result.
//
//===----------------------------------------------------------------------===//

#include "compiler/Passes.h"
#include "dialects/attn/AttnOps.h"
#include "lib/semantics/RegionOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace attnc {
#define GEN_PASS_DEF_ATTNFUSEELEMENTWISE
#include "compiler/Passes.h.inc"
} // namespace attnc

using namespace mlir;
using attnc::sem::Signature;

namespace {

bool isElementType(Type type) {
  return type.isF32() || type.isF16() || type.isBF16();
}

/// Whether `value` is a float tensor of `shape` that attn.elementwise reads.
bool isElementwiseTensor(Value value, ArrayRef<int64_t> shape) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.getShape() == shape &&
         isElementType(type.getElementType());
}

/// The splat float constant `value` is, if it is one: a dense splat, or
/// tensor.splat of a constant (how a tensor of dynamic shape is filled).
std::optional<APFloat> splatConstant(Value value) {
  DenseFPElementsAttr dense;
  if (matchPattern(value, m_Constant(&dense)) && dense.isSplat())
    return dense.getSplatValue<APFloat>();
  FloatAttr scalar;
  if (auto splat = value.getDefiningOp<tensor::SplatOp>();
      splat && matchPattern(splat.getInput(), m_Constant(&scalar)))
    return scalar.getValue();
  return std::nullopt;
}

/// Whether `op` is a float op on tensors of one shape, not all splat
/// constants, whose scalar form an elementwise body may hold.
bool isTensorElementwise(Operation *op) {
  const attnc::sem::RegionOpInfo *info =
      attnc::sem::findRegionOp(op->getName().getStringRef());
  if (!info || op->getNumResults() != 1 || op->getNumRegions() != 0 ||
      (info->signature != Signature::FloatElementwise &&
       info->signature != Signature::FloatToFloat))
    return false;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  // An op of splat constants only is a constant (canonicalization folds
  // dense ones); it has no input for an element kernel to read.
  return type && isElementwiseTensor(op->getResult(0), type.getShape()) &&
         llvm::all_of(op->getOperands(),
                      [&](Value operand) {
                        return isElementwiseTensor(operand, type.getShape());
                      }) &&
         !llvm::all_of(op->getOperands(),
                       [](Value operand) { return splatConstant(operand); });
}

/// An attn.elementwise of `types` over `inputs` with an empty body block of
/// one f32 argument per input.
attn::ElementwiseOp createElementwise(OpBuilder &b, Location loc,
                                      TypeRange types, ValueRange inputs,
                                      IntegerAttr blockSize) {
  auto op = attn::ElementwiseOp::create(b, loc, types, inputs, blockSize);
  Block *body = new Block();
  op.getBody().push_back(body);
  for (Value input : inputs)
    body->addArgument(b.getF32Type(), input.getLoc());
  return op;
}

/// Replaces the tensor op `op` by an attn.elementwise over its operands
/// that are not splat constants; its body applies the op's scalar form (a
/// float conversion is the identity there: the result's rounding does it).
void convertToElementwise(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  SmallVector<Value> inputs;
  for (Value operand : op->getOperands())
    if (!splatConstant(operand))
      inputs.push_back(operand);
  Type f32 = b.getF32Type();
  auto fused =
      createElementwise(b, loc, op->getResultTypes(), inputs, IntegerAttr());
  b.setInsertionPointToStart(&fused.getBody().front());
  SmallVector<Value> args;
  unsigned next = 0;
  for (Value operand : op->getOperands()) {
    std::optional<APFloat> splat = splatConstant(operand);
    if (!splat) {
      args.push_back(fused.getBody().getArgument(next++));
      continue;
    }
    bool lost;
    splat->convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
    args.push_back(
        arith::ConstantOp::create(b, loc, b.getFloatAttr(f32, *splat)));
  }
  Value result = args.front();
  if (attnc::sem::findRegionOp(op->getName().getStringRef())->signature !=
      Signature::FloatToFloat) {
    OperationState state(loc, op->getName());
    state.addOperands(args);
    state.addTypes(f32);
    state.addAttributes(op->getAttrs());
    result = b.create(state)->getResult(0);
  }
  attn::YieldOp::create(b, loc, result);
  op->replaceAllUsesWith(fused->getResults());
  op->erase();
}

/// `value` (f32) rounded to `type`'s element type and back, as storing it
/// there would.
Value roundThrough(OpBuilder &b, Location loc, Value value, Type type) {
  Type element = cast<RankedTensorType>(type).getElementType();
  if (element.isF32())
    return value;
  Value narrow = arith::TruncFOp::create(b, loc, element, value);
  return arith::ExtFOp::create(b, loc, b.getF32Type(), narrow);
}

/// Clones `op`'s body ops at `b` with its arguments mapped to `args` and
/// returns the clones of the values it yields.
SmallVector<Value> cloneBody(OpBuilder &b, attn::ElementwiseOp op,
                             ValueRange args) {
  Block &body = op.getBody().front();
  IRMapping mapping;
  mapping.map(body.getArguments(), args);
  for (Operation &nested : body.without_terminator())
    b.clone(nested, mapping);
  return llvm::map_to_vector(body.getTerminator()->getOperands(),
                             [&](Value v) { return mapping.lookup(v); });
}

/// Replaces `consumer` and `producer`, whose one result only `consumer`
/// reads, by one op that computes both bodies; each input once.
void fuse(attn::ElementwiseOp producer, attn::ElementwiseOp consumer) {
  Value produced = producer.getOuts().front();
  SmallVector<Value> inputs;
  llvm::DenseMap<Value, unsigned> position;
  auto add = [&](Value v) {
    if (position.try_emplace(v, inputs.size()).second)
      inputs.push_back(v);
  };
  for (Value v : consumer.getInputs())
    if (v != produced)
      add(v);
  llvm::for_each(producer.getInputs(), add);
  OpBuilder b(consumer);
  Location loc = consumer.getLoc();
  auto fused = createElementwise(b, loc, consumer.getOuts().getTypes(), inputs,
                                 consumer.getBlockSizeAttr());
  Block &body = fused.getBody().front();
  b.setInsertionPointToStart(&body);
  auto argsOf = [&](ValueRange values, Value replacement) {
    return llvm::map_to_vector(values, [&](Value v) {
      return v == produced ? replacement : Value(body.getArgument(position[v]));
    });
  };
  Value value = roundThrough(
      b, loc, cloneBody(b, producer, argsOf(producer.getInputs(), {})).front(),
      produced.getType());
  attn::YieldOp::create(
      b, loc, cloneBody(b, consumer, argsOf(consumer.getInputs(), value)));
  consumer->replaceAllUsesWith(fused->getResults());
  consumer.erase();
  producer.erase();
}

/// A one-result elementwise operand of `consumer` that only `consumer`
/// reads.
attn::ElementwiseOp fusableProducer(attn::ElementwiseOp consumer) {
  for (Value input : consumer.getInputs()) {
    auto producer = input.getDefiningOp<attn::ElementwiseOp>();
    if (producer && producer->getNumResults() == 1 &&
        producer->getBlock() == consumer->getBlock() &&
        llvm::all_of(producer->getUsers(),
                     [&](Operation *user) { return user == consumer; }))
      return producer;
  }
  return {};
}

struct AttnFuseElementwisePass
    : attnc::impl::AttnFuseElementwiseBase<AttnFuseElementwisePass> {
  void runOnOperation() override {
    SmallVector<Operation *> tensorOps;
    getOperation().walk([&](Operation *op) {
      if (isTensorElementwise(op))
        tensorOps.push_back(op);
    });
    for (Operation *op : tensorOps)
      convertToElementwise(op);
    // The splat constants the bodies took, and what built them, are dead.
    for (Block &block : getOperation().getBody()) {
      SmallVector<Operation *> ops = llvm::map_to_vector(
          block.without_terminator(), [](Operation &op) { return &op; });
      for (Operation *op : llvm::reverse(ops))
        if (isOpTriviallyDead(op))
          op->erase();
    }
    // Each fusion removes an op, so this ends.
    for (bool fused = true; fused;) {
      fused = false;
      getOperation().walk([&](attn::ElementwiseOp consumer) {
        if (attn::ElementwiseOp producer = fusableProducer(consumer)) {
          fuse(producer, consumer);
          fused = true;
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
    }
  }
};

} // namespace
