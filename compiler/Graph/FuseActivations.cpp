//===- FuseActivations.cpp - Activations into the matmuls they read -------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// An MLP's first layer is an activation of a projection that nothing else
// reads:
//
//   %f0 = attn.matmul %n, %wf, %bf {transpose_b} : ...
//   %f = attn.elementwise %f0 : ... {
//   ^bb0(%x: f32):
//     ... 0.5 x (1 + tanh(0.7978845608 (x + 0.044715 x^3))) ...
//   }
//
// becomes one matmul that applies it in its epilogue (cuBLASLt's GELU
// epilogue on a GPU):
//
//   %f = attn.matmul %n, %wf, %bf {activation = "gelu_tanh", transpose_b}
//
// A body is the activation when it computes the same scalar ops as
// attn::buildMatmulActivation builds, over the same operands (either order
// for commutative ops) and constants of the same value. The product is
// then rounded once, after the activation, rather than before it.
//
//===----------------------------------------------------------------------===//

#include "compiler/Passes.h"
#include "dialects/attn/AttnOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

namespace attnc {
#define GEN_PASS_DEF_ATTNFUSEACTIVATIONS
#include "compiler/Passes.h.inc"
} // namespace attnc

using namespace mlir;

namespace {

/// Whether `a` computes what `b` computes, each in a body of one argument.
bool sameFunction(Value a, Value b) {
  if (isa<BlockArgument>(a) || isa<BlockArgument>(b))
    return isa<BlockArgument>(a) && isa<BlockArgument>(b);
  Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
  if (x->getName() != y->getName() ||
      x->getNumOperands() != y->getNumOperands() ||
      a.getType() != b.getType() ||
      x->getPropertiesAsAttribute() != y->getPropertiesAsAttribute() ||
      x->getDiscardableAttrDictionary() != y->getDiscardableAttrDictionary())
    return false;
  auto pairwise = [&](ValueRange xs, ValueRange ys) {
    return llvm::all_of(llvm::zip(xs, ys), [](auto pair) {
      return sameFunction(std::get<0>(pair), std::get<1>(pair));
    });
  };
  if (pairwise(x->getOperands(), y->getOperands()))
    return true;
  return x->hasTrait<OpTrait::IsCommutative>() && x->getNumOperands() == 2 &&
         sameFunction(x->getOperand(0), y->getOperand(1)) &&
         sameFunction(x->getOperand(1), y->getOperand(0));
}

/// Whether the one-input, one-result body of `op` computes `activation`.
bool computes(attn::ElementwiseOp op, StringRef activation) {
  Block &body = op.getBody().front();
  Block canonical;
  OpBuilder b(op.getContext());
  b.setInsertionPointToEnd(&canonical);
  Value x = canonical.addArgument(b.getF32Type(), op.getLoc());
  Value expected = attn::buildMatmulActivation(b, op.getLoc(), activation, x);
  return sameFunction(body.getTerminator()->getOperand(0), expected);
}

/// Fuses `op` into the linear layer it reads, if its body is an activation
/// of the layer's result alone and nothing else reads that result.
bool fuseIntoMatmul(attn::ElementwiseOp op) {
  if (op.getInputs().size() != 1 || op.getOuts().size() != 1)
    return false;
  Value input = op.getInputs().front();
  auto matmul = input.getDefiningOp<attn::MatmulOp>();
  if (!matmul || matmul.getTransposeA() || matmul.getAddend() ||
      matmul.getActivation() || !input.hasOneUse() ||
      input.getType() != op.getOuts().front().getType() ||
      !computes(op, attn::kGeluTanh))
    return false;
  matmul.setActivation(attn::kGeluTanh);
  op.getOuts().front().replaceAllUsesWith(input);
  op.erase();
  return true;
}

struct AttnFuseActivationsPass
    : attnc::impl::AttnFuseActivationsBase<AttnFuseActivationsPass> {
  void runOnOperation() override {
    SmallVector<attn::ElementwiseOp> candidates;
    getOperation().walk(
        [&](attn::ElementwiseOp op) { candidates.push_back(op); });
    for (attn::ElementwiseOp op : candidates)
      fuseIntoMatmul(op);
  }
};

} // namespace
