//===- FuseLinearLoss.cpp - The LM head's matmul into its loss ------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
//   %logits = attn.matmul %h, %e {transpose_b}
//   %losses, %lse = attn.cross_entropy %logits, %labels
//
// becomes, when nothing else reads the logits,
//
//   %losses, %lse = attn.linear_cross_entropy %h, %e, %labels
//
// which attn-expand-linear-loss computes a vocabulary chunk at a time, so
// that neither the forward nor the backward function holds the logits.
//
//===----------------------------------------------------------------------===//

#include "compiler/Passes.h"
#include "dialects/attn/AttnOps.h"
#include "mlir/IR/PatternMatch.h"

namespace attnc {
#define GEN_PASS_DEF_ATTNFUSELINEARLOSS
#include "compiler/Passes.h.inc"
} // namespace attnc

using namespace mlir;

namespace {

/// Whether `matmul` is a plain LM head: h [r..., C] times a static table
/// [V, C] transposed, nothing added, logits in h's element type.
bool isHead(attn::MatmulOp matmul) {
  RankedTensorType table = matmul.getB().getType();
  return matmul.getTransposeB() && !matmul.getTransposeA() &&
         !matmul.getBias() && !matmul.getAddend() && !matmul.getActivation() &&
         table.getRank() == 2 && table.hasStaticShape() &&
         matmul.getOut().getType().getElementType() ==
             matmul.getA().getType().getElementType();
}

/// Fuses `op` with the LM head whose logits it alone reads, if any.
void fuseHeadIntoLoss(attn::CrossEntropyOp op) {
  auto matmul = op.getLogits().getDefiningOp<attn::MatmulOp>();
  if (!matmul || !isHead(matmul) || !matmul->hasOneUse())
    return;
  IRRewriter rewriter(op);
  rewriter.replaceOpWithNewOp<attn::LinearCrossEntropyOp>(
      op, op.getLosses().getType(), op.getLse().getType(), matmul.getA(),
      matmul.getB(), op.getLabels(), op.getIgnoreIndexAttr());
  rewriter.eraseOp(matmul);
}

// A walk rather than a greedy driver: nothing else in the function moves
// (the driver would fold and reorder constants in element-wise bodies).
struct AttnFuseLinearLossPass
    : attnc::impl::AttnFuseLinearLossBase<AttnFuseLinearLossPass> {
  void runOnOperation() override {
    getOperation().walk([](attn::CrossEntropyOp op) { fuseHeadIntoLoss(op); });
  }
};

} // namespace
