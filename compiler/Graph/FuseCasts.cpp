//===- FuseCasts.cpp - Unscaled casts into the kernels next to them -------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A mixed-precision block keeps its residual stream in f32 and feeds its
// matmuls in bf16, so a norm is followed by a cast, and the norm's
// gradient reads a cotangent widened back to f32:
//
//   %n, %r = attn.rms_norm %x, %g ... -> tensor<?x64xf32>, ...
//   %nb = attn.cast %n : tensor<?x64xf32> to tensor<?x64xbf16>
//
// An op of F32ComputeOpInterface computes in f32 whatever its tensors'
// element types, so the norm may round straight to bf16, and a consumer
// may read the narrow cotangent itself:
//
//   %nb, %r = attn.rms_norm %x, %g ... -> tensor<?x64xbf16>, ...
//
// Both are exact: an f32 result rounded by the cast is the same rounding,
// and widening to f32 loses nothing. A cast with a scale, or of a 16-bit
// result, stays (folding it would change bits).
//
//===----------------------------------------------------------------------===//

#include "compiler/Passes.h"
#include "dialects/attn/AttnOps.h"

namespace attnc {
#define GEN_PASS_DEF_ATTNFUSECASTS
#include "compiler/Passes.h.inc"
} // namespace attnc

using namespace mlir;

namespace {

Type elementOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

/// Folds `op` into the op that computes its input, when that op rounds
/// the input from f32, is its only reader, and the input is f32.
bool fuseIntoProducer(attn::CastOp op) {
  auto result = dyn_cast<OpResult>(op.getIn());
  if (!result || !result.hasOneUse() || !elementOf(result).isF32())
    return false;
  auto producer = dyn_cast<attn::F32ComputeOpInterface>(result.getOwner());
  if (!producer || !producer.roundsFromF32(result.getResultNumber()))
    return false;
  auto type =
      cast<RankedTensorType>(result.getType()).clone(elementOf(op.getOut()));
  if (type != op.getOut().getType())
    return false;
  result.setType(type);
  op.getOut().replaceAllUsesWith(result);
  op.erase();
  return true;
}

/// Lets each reader of a widening `op` that reads that operand in f32
/// read the cast's input instead; erases the cast when nothing is left.
void fuseIntoConsumers(attn::CastOp op) {
  if (!elementOf(op.getOut()).isF32())
    return;
  for (OpOperand &use : llvm::make_early_inc_range(op.getOut().getUses())) {
    auto consumer = dyn_cast<attn::F32ComputeOpInterface>(use.getOwner());
    if (consumer && consumer.readsInF32(use.getOperandNumber()))
      use.set(op.getIn());
  }
  if (op.use_empty())
    op.erase();
}

struct FuseCastsPass : attnc::impl::AttnFuseCastsBase<FuseCastsPass> {
  void runOnOperation() override {
    SmallVector<attn::CastOp> casts;
    getOperation().walk([&](attn::CastOp op) {
      if (!op.getScale() && !op.getInRowSwizzle())
        casts.push_back(op);
    });
    for (attn::CastOp op : casts)
      if (!fuseIntoProducer(op))
        fuseIntoConsumers(op);
  }
};

} // namespace
