//===- DifferentiateScore.cpp - The score region's derivative -------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Forward-mode differentiation of a score region with respect to its score
// argument s: the region's ops are cloned into the score_grad region and
// each float value that depends on s gets a tangent (d value / d s) built
// from the same region ops, so the derivative region passes the verifier
// and every target lowers it like any region. Values that do not depend on
// s have no tangent (zero) and cost nothing.
//
//===----------------------------------------------------------------------===//

#include "compiler/Passes.h"
#include "dialects/attn/AttnOps.h"
#include "dialects/attn/RegionTangents.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

namespace attnc {
#define GEN_PASS_DEF_ATTNDIFFERENTIATESCORE
#include "compiler/Passes.h.inc"
} // namespace attnc

using namespace mlir;

namespace {

/// Fills `scoreGrad` with the derivative of `score`.
LogicalResult differentiateScore(Region &score, Region &scoreGrad) {
  Block &source = score.front();
  Block *target = new Block();
  scoreGrad.push_back(target);
  for (BlockArgument arg : source.getArguments())
    target->addArgument(arg.getType(), arg.getLoc());
  OpBuilder b = OpBuilder::atBlockEnd(target);
  Location loc = source.getTerminator()->getLoc();
  IRMapping mapping;
  mapping.map(source.getArguments(), target->getArguments());
  Value one = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0));
  FailureOr<SmallVector<Value>> derivatives = attn::cloneWithTangents(
      b, source, mapping, {{source.getArgument(0), one}},
      source.getTerminator()->getOperands(), "the score");
  if (failed(derivatives))
    return failure();
  Value derivative = derivatives->front();
  if (!derivative)
    derivative = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
  attn::YieldOp::create(b, loc, derivative);
  return success();
}

struct AttnDifferentiateScorePass
    : attnc::impl::AttnDifferentiateScoreBase<AttnDifferentiateScorePass> {
  void runOnOperation() override {
    WalkResult result = getOperation().walk([](attn::AttentionGradOp op) {
      if (op.getScore().empty() || !op.getScoreGrad().empty())
        return WalkResult::advance();
      if (succeeded(differentiateScore(op.getScore(), op.getScoreGrad())))
        return WalkResult::advance();
      op.getScoreGrad().getBlocks().clear();
      return WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
