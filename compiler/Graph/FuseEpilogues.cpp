//===- FuseEpilogues.cpp - Sums into the matmuls they read ----------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A residual add reads a projection once and is its only reader:
//
//   %p = attn.matmul %o, %wo {transpose_b} : ...
//   %h = attn.elementwise %x, %p : ... {
//   ^bb0(%a: f32, %b: f32):
//     %s = arith.addf %a, %b : f32
//     attn.yield %s : f32
//   }
//
// becomes one matmul whose epilogue adds %x (cuBLASLt's C on a GPU):
//
//   %h = attn.matmul %o, %wo + %x {transpose_b} : ...
//
// A body is a sum when it is a tree of arith.addf over its arguments, each
// argument read once, where a partial sum may be rounded to the result's
// type (truncf, then extf: what attn-fuse-elementwise leaves where it
// fused one add into another). The root's other side becomes the addend:
// an input as it is, or a new attn.elementwise of that side's sum, which
// a later round may fuse into another matmul.
//
//===----------------------------------------------------------------------===//

#include "compiler/Passes.h"
#include "dialects/attn/AttnOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"

namespace attnc {
#define GEN_PASS_DEF_ATTNFUSEEPILOGUES
#include "compiler/Passes.h.inc"
} // namespace attnc

using namespace mlir;

namespace {

/// `v` without a rounding to `element` around it (extf of truncf).
Value unrounded(Value v, Type element) {
  auto ext = v.getDefiningOp<arith::ExtFOp>();
  auto trunc = ext ? ext.getIn().getDefiningOp<arith::TruncFOp>() : nullptr;
  return trunc && trunc.getType() == element ? trunc.getIn() : v;
}

/// Adds the arguments and ops of the sum tree at `v` to `args` and `ops`;
/// fails on anything that is not an addend, an addf or a rounding.
LogicalResult collectSum(Value v, Type element, SmallVector<unsigned> &args,
                         unsigned &ops) {
  Value inner = unrounded(v, element);
  if (inner != v)
    ops += 2;
  if (auto arg = dyn_cast<BlockArgument>(inner)) {
    args.push_back(arg.getArgNumber());
    return success();
  }
  auto add = inner.getDefiningOp<arith::AddFOp>();
  if (!add)
    return failure();
  ++ops;
  return success(succeeded(collectSum(add.getLhs(), element, args, ops)) &&
                 succeeded(collectSum(add.getRhs(), element, args, ops)));
}

/// The root addf of `op`'s body when the body is a sum that reads each
/// argument once.
arith::AddFOp sumRoot(attn::ElementwiseOp op) {
  if (op->getNumResults() != 1)
    return {};
  Block &body = op.getBody().front();
  Value yielded = body.getTerminator()->getOperand(0);
  auto root = yielded.getDefiningOp<arith::AddFOp>();
  Type element = getElementTypeOrSelf(op.getOuts().front().getType());
  SmallVector<unsigned> args;
  unsigned ops = 0;
  if (!root || failed(collectSum(yielded, element, args, ops)))
    return {};
  llvm::sort(args);
  bool eachOnce =
      llvm::equal(args, llvm::seq<unsigned>(0, body.getNumArguments()));
  bool nothingElse = ops + 1 == body.getOperations().size();
  return eachOnce && nothingElse ? root : arith::AddFOp();
}

/// The kernel that `side` (an argument of `op`'s body) reads when it can
/// take the rest of the sum: the input is the kernel's addend target, read
/// by nothing else, of the sum's result type, and the kernel has no addend
/// yet.
attn::EpilogueAddendOpInterface fusableProducer(attn::ElementwiseOp op,
                                                Value side) {
  auto arg = dyn_cast<BlockArgument>(side);
  if (!arg)
    return {};
  Value input = op.getInputs()[arg.getArgNumber()];
  auto producer = input.getDefiningOp<attn::EpilogueAddendOpInterface>();
  if (!producer || producer.getAddendTarget() != input ||
      producer.getEpilogueAddend() || !input.hasOneUse() ||
      producer->getBlock() != op->getBlock() ||
      input.getType() != op.getOuts().front().getType())
    return {};
  return producer;
}

/// Clones the sum tree at `v` into `b`'s block, its arguments mapped by
/// `mapping` (filled as they are met, with `inputs` growing alongside).
Value cloneSum(OpBuilder &b, Value v, attn::ElementwiseOp op,
               IRMapping &mapping, SmallVector<Value> &inputs) {
  if (Value known = mapping.lookupOrNull(v))
    return known;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    inputs.push_back(op.getInputs()[arg.getArgNumber()]);
    Value clone = b.getBlock()->addArgument(b.getF32Type(), arg.getLoc());
    mapping.map(v, clone);
    return clone;
  }
  Operation *def = v.getDefiningOp();
  for (Value operand : def->getOperands())
    cloneSum(b, operand, op, mapping, inputs);
  return b.clone(*def, mapping)->getResult(0);
}

/// The addend `side` of `op`'s sum stands for: the input it reads, or a
/// new attn.elementwise of its sum (rounded once, to the result's type).
Value buildAddend(OpBuilder &b, attn::ElementwiseOp op, Value side) {
  Type type = op.getOuts().front().getType();
  auto arg = dyn_cast<BlockArgument>(side);
  if (arg && op.getInputs()[arg.getArgNumber()].getType() == type)
    return op.getInputs()[arg.getArgNumber()];
  Block *body = new Block();
  OpBuilder bodyBuilder(op.getContext());
  bodyBuilder.setInsertionPointToStart(body);
  IRMapping mapping;
  SmallVector<Value> inputs;
  Value sum = cloneSum(bodyBuilder, unrounded(side, getElementTypeOrSelf(type)),
                       op, mapping, inputs);
  attn::YieldOp::create(bodyBuilder, op.getLoc(), sum);
  auto rest = attn::ElementwiseOp::create(b, op.getLoc(), TypeRange{type},
                                          inputs, op.getBlockSizeAttr());
  rest.getBody().push_back(body);
  return rest.getOuts().front();
}

/// Where the fused kernel goes: at the sum, unless the producer's other
/// results are read before it (a norm gradient's partial sums), then at the
/// producer, which the rest of the sum must then be defined before; null
/// when neither place works.
Operation *insertionPoint(attn::ElementwiseOp op,
                          attn::EpilogueAddendOpInterface producer,
                          Value side) {
  bool readEarly = llvm::any_of(producer->getUsers(), [&](Operation *user) {
    return user != op && user->isBeforeInBlock(op);
  });
  if (!readEarly)
    return op;
  auto before = [&](Value v) {
    Operation *def = v.getDefiningOp();
    return v.getParentBlock() == producer->getBlock() &&
           (!def || def->isBeforeInBlock(producer));
  };
  Value input = op.getInputs()[cast<BlockArgument>(side).getArgNumber()];
  for (Value v : op.getInputs())
    if (v != input && !before(v))
      return nullptr;
  return producer;
}

/// Fuses `op` into a kernel it reads, if its body is a sum and one side of
/// the root is such a kernel's result.
bool fuseIntoProducer(attn::ElementwiseOp op) {
  arith::AddFOp root = sumRoot(op);
  if (!root)
    return false;
  for (auto [side, other] : {std::pair{root.getLhs(), root.getRhs()},
                             {root.getRhs(), root.getLhs()}}) {
    attn::EpilogueAddendOpInterface producer = fusableProducer(op, side);
    if (!producer)
      continue;
    Operation *insertAt = insertionPoint(op, producer, side);
    if (!insertAt)
      continue;
    Value target = producer.getAddendTarget();
    OpBuilder b(insertAt);
    Operation *fused = producer.cloneWithAddend(b, buildAddend(b, op, other));
    Value fusedTarget =
        fused->getResult(cast<OpResult>(target).getResultNumber());
    op->replaceAllUsesWith(ValueRange{fusedTarget});
    op.erase();
    producer->replaceAllUsesWith(fused->getResults());
    producer->erase();
    return true;
  }
  return false;
}

struct AttnFuseEpiloguesPass
    : attnc::impl::AttnFuseEpiloguesBase<AttnFuseEpiloguesPass> {
  void runOnOperation() override {
    // Each fusion removes a kernel without an addend, so this ends.
    for (bool fused = true; fused;) {
      fused = false;
      getOperation().walk([&](attn::ElementwiseOp op) {
        if (!fuseIntoProducer(op))
          return WalkResult::advance();
        fused = true;
        return WalkResult::interrupt();
      });
    }
  }
};

} // namespace
