//===- SplitKeys.cpp - Few query rows over many keys, split by keys -------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
//   %out, %lse = attn.attention %q, %k, %v {...}
//
// with few query rows (decoding: Nq = 1 against a long key/value cache)
// leaves most of a GPU idle: one block per (query block, head, batch) walks
// every key. Flash-decoding splits the keys into S ranges, each walked by
// its own blocks, and merges the ranges by their lse:
//
//   %po, %pl = attn.attention_split %q, %k, %v {...}   // S ranges, f32
//   %out, %lse = attn.attention_combine %po, %pl
//
// Program formation then gives %po and %pl workspace buffers.
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/Config/KernelConfig.h"
#include "compiler/Passes.h"
#include "dialects/attn/AttnOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace attnc {
#define GEN_PASS_DEF_ATTNSPLITKEYS
#include "compiler/Passes.h.inc"
} // namespace attnc

using namespace mlir;

namespace {

/// Query rows up to which a GPU splits the keys by default: a block of
/// query rows per head then leaves most of the machine idle.
constexpr int64_t kMaxSplitQueryRows = 64;
/// Ranges by default (H200, decoding GQA 32:8 hd128 over 4k-32k keys at
/// batch 1-32: mma.sync warps are fastest with 32 or close to it, and the
/// wgmma warpgroup holding a group's heads, whose blocks are four times
/// larger, with 16; bench/NOTES.md), and the fewest keys worth a range of
/// their own.
constexpr int64_t kDefaultRanges = 32;
constexpr int64_t kDefaultWarpgroupRanges = 16;
constexpr int64_t kMinKeysPerRange = 256;

/// The number of key ranges for `op`: `requested` when positive (1 keeps
/// the op whole); by default, on a GPU with tensor cores, kDefaultRanges
/// (kDefaultWarpgroupRanges for the wgmma kernel) for f16/bf16 ops with a
/// static Nq of at most kMaxSplitQueryRows and enough keys, else 1.
int64_t rangesFor(attn::AttentionOp op, const attnc::TargetDescription &target,
                  int64_t requested) {
  if (requested > 0)
    return requested;
  RankedTensorType qType = op.getQ().getType();
  int64_t seqQ = qType.getDimSize(2);
  int64_t seqK = op.getK().getType().getDimSize(2);
  if (!target.hasMmaSync || !attn::elementFitsMma(qType.getElementType()) ||
      ShapedType::isDynamic(seqQ) || seqQ > kMaxSplitQueryRows)
    return 1;
  int64_t ranges = attnc::packsGroupOnWarpgroup(op, target)
                       ? kDefaultWarpgroupRanges
                       : kDefaultRanges;
  if (ShapedType::isDynamic(seqK))
    return ranges;
  return std::min(ranges, seqK / kMinKeysPerRange);
}

struct SplitKeys : OpRewritePattern<attn::AttentionOp> {
  SplitKeys(MLIRContext *context, const attnc::TargetDescription &target,
            int64_t requested)
      : OpRewritePattern(context), target(target), requested(requested) {}

  LogicalResult matchAndRewrite(attn::AttentionOp op,
                                PatternRewriter &rewriter) const override {
    int64_t ranges = rangesFor(op, target, requested);
    if (ranges < 2)
      return rewriter.notifyMatchFailure(op, "one key range");
    auto withRanges = [&](RankedTensorType type) {
      SmallVector<int64_t> shape(type.getShape());
      shape.insert(shape.begin(), ranges);
      return RankedTensorType::get(shape, rewriter.getF32Type());
    };
    auto split = attn::AttentionSplitOp::create(
        rewriter, op.getLoc(),
        TypeRange{withRanges(op.getOut().getType()),
                  withRanges(op.getLse().getType())},
        op->getOperands(), op->getAttrs());
    IRMapping mapping;
    op.getMask().cloneInto(&split.getMask(), mapping);
    op.getScore().cloneInto(&split.getScore(), mapping);
    rewriter.replaceOpWithNewOp<attn::AttentionCombineOp>(
        op, op->getResultTypes(), split.getOutPart(), split.getLsePart(),
        IntegerAttr());
    return success();
  }

  const attnc::TargetDescription &target;
  int64_t requested;
};

struct AttnSplitKeysPass : attnc::impl::AttnSplitKeysBase<AttnSplitKeysPass> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<attnc::TargetDescription> description =
        attnc::TargetDescription::get(
            target, tensorCores, [&] { return getOperation().emitError(); });
    if (failed(description))
      return signalPassFailure();
    int64_t requested = keyRanges;
    if (requested < 0) {
      getOperation().emitError()
          << "key-ranges must be 0 (choose) or positive, got " << requested;
      return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    patterns.add<SplitKeys>(&getContext(), *description, requested);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace
