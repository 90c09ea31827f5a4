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
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

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

struct FuseHeadIntoLoss : OpRewritePattern<attn::CrossEntropyOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(attn::CrossEntropyOp op,
                                PatternRewriter &rewriter) const override {
    auto matmul = op.getLogits().getDefiningOp<attn::MatmulOp>();
    if (!matmul || !isHead(matmul) || !matmul->hasOneUse())
      return rewriter.notifyMatchFailure(op, "logits are no LM head's alone");
    rewriter.replaceOpWithNewOp<attn::LinearCrossEntropyOp>(
        op, op.getLosses().getType(), op.getLse().getType(), matmul.getA(),
        matmul.getB(), op.getLabels(), op.getIgnoreIndexAttr());
    rewriter.eraseOp(matmul);
    return success();
  }
};

struct AttnFuseLinearLossPass
    : attnc::impl::AttnFuseLinearLossBase<AttnFuseLinearLossPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseHeadIntoLoss>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
