//===- ExpandAttentionGrad.cpp - attn.attention_grad to its kernels -------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
//   %dq, %dk, %dv = attn.attention_grad %q, %k, %v, %out, %lse, %dout
//
// becomes (fast dq)
//
//   %delta, %acc = attn.attention_grad_delta %out, %dout
//   %dk, %dv, %sum = attn.attention_grad_kv %q, %k, %v, %lse, %delta, %dout,
//                                            %acc
//   %dq = attn.cast %sum : f32 to q's type
//
// where the accumulator's rows are in a swizzled order (row_swizzle, read
// back by the cast's in_row_swizzle) whenever the head dim allows one,
// on every target, so the host runs the order the GPU kernels need.
//
// or (dq by its own kernel: deterministic, and faster for wide heads on a
// GPU)
//
//   %delta, %unused = attn.attention_grad_delta %out, %dout
//   %dk, %dv = attn.attention_grad_kv %q, %k, %v, %lse, %delta, %dout
//   %dq = attn.attention_grad_q %q, %k, %v, %lse, %delta, %dout
//
// The kernels share the op's attributes and regions. Program formation
// then gives %delta and %acc workspace buffers the caller never sees.
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/Config/TargetDescription.h"
#include "compiler/Passes.h"
#include "dialects/attn/AttnOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/DialectConversion.h"

namespace attnc {
#define GEN_PASS_DEF_ATTNEXPANDATTENTIONGRAD
#include "compiler/Passes.h.inc"
} // namespace attnc

using namespace mlir;

namespace {

/// The attributes, captures and regions every gradient kernel copies from
/// the op; `operands` are the kernel's others.
template <typename Kernel>
Kernel createKernel(OpBuilder &b, attn::AttentionGradOp op, TypeRange results,
                    ValueRange operands) {
  SmallVector<NamedAttribute> attrs;
  for (StringRef name : {"scale", "causal", "bottom_right", "window_left",
                         "window_right", "tiles"})
    if (Attribute attr = op->getAttr(name))
      attrs.push_back(b.getNamedAttr(name, attr));
  SmallVector<Value> all(operands);
  llvm::append_range(all, op.getCaptures());
  if constexpr (Kernel::template hasTrait<
                    OpTrait::AttrSizedOperandSegments>()) {
    // The key/value kernel: six tensors, the optional dq_accum, captures.
    int32_t accumulators = static_cast<int32_t>(operands.size()) - 6;
    attrs.push_back(
        b.getNamedAttr("operandSegmentSizes",
                       b.getDenseI32ArrayAttr(
                           {1, 1, 1, 1, 1, 1, accumulators,
                            static_cast<int32_t>(op.getCaptures().size())})));
  }
  auto kernel = Kernel::create(b, op.getLoc(), results, all, attrs);
  IRMapping mapping;
  op.getMask().cloneInto(&kernel.getMask(), mapping);
  op.getScore().cloneInto(&kernel.getScore(), mapping);
  op.getScoreGrad().cloneInto(&kernel.getScoreGrad(), mapping);
  return kernel;
}

/// Whether dq gets its own kernel: asked for, or the faster program on
/// `target`. On the H200 the tensor-core key/value kernel's dq product and
/// its reductions cost more than the query kernel's three extra products
/// from head dim 128 on, also as bulk reductions (bench/NOTES.md); the
/// scalar kernels are faster with atomics. Below 128, head dims at which
/// the wgmma key/value kernel cannot add dq take it too where the kernels
/// may be wgmma.
bool dqByOwnKernel(attn::AttentionGradOp op,
                   const attnc::TargetDescription &target) {
  RankedTensorType qType = op.getQ().getType();
  int64_t headDim = qType.getDimSize(3);
  bool tensorCores =
      target.hasMmaSync && attn::elementFitsMma(qType.getElementType());
  bool wgmma = tensorCores && target.hasWgmma && !target.onlyMmaSync;
  return op.getDeterministic() || (tensorCores && headDim >= 128) ||
         (wgmma && !attn::wgmmaKeyValueAddsDq(headDim));
}

/// The swizzle width of the dq accumulator's rows: the columns a wgmma
/// warpgroup of the key/value kernel owns (half the head dim, its two
/// warpgroups split dq by columns), or the whole row where the half is not
/// a multiple of 16; none for head dims that are not.
std::optional<int64_t> dqRowSwizzle(int64_t headDim) {
  if (headDim % 32 == 0)
    return headDim / 2;
  if (headDim % 16 == 0)
    return headDim;
  return std::nullopt;
}

struct ExpandAttentionGrad : OpConversionPattern<attn::AttentionGradOp> {
  ExpandAttentionGrad(MLIRContext *context,
                      const attnc::TargetDescription &target)
      : OpConversionPattern(context), target(target) {}

  LogicalResult
  matchAndRewrite(attn::AttentionGradOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType qType = op.getQ().getType();
    Type f32 = rewriter.getF32Type();
    auto rowType = RankedTensorType::get(qType.getShape().take_front(3), f32);
    auto accType = RankedTensorType::get(qType.getShape(), f32);
    auto delta = attn::AttentionGradDeltaOp::create(
        rewriter, loc, rowType, accType, op.getOut(), op.getDout(),
        IntegerAttr());
    SmallVector<Value> operands = {op.getQ(),   op.getK(),        op.getV(),
                                   op.getLse(), delta.getDelta(), op.getDout()};
    SmallVector<Type> kvTypes = {op.getK().getType(), op.getV().getType()};
    bool ownKernel = dqByOwnKernel(op, target);
    if (!ownKernel) {
      kvTypes.push_back(accType);
      operands.push_back(delta.getDqAccum());
    }
    auto kv =
        createKernel<attn::AttentionGradKVOp>(rewriter, op, kvTypes, operands);
    IntegerAttr swizzle;
    if (std::optional<int64_t> width = dqRowSwizzle(qType.getDimSize(3));
        width && !ownKernel) {
      swizzle = rewriter.getI64IntegerAttr(*width);
      kv.setRowSwizzleAttr(swizzle);
    }
    Value dq =
        ownKernel
            ? createKernel<attn::AttentionGradQOp>(
                  rewriter, op, qType, ValueRange(operands).take_front(6))
                  .getDq()
            : attn::CastOp::create(rewriter, loc, qType, kv.getDqAccumOut(),
                                   FloatAttr(), IntegerAttr(), swizzle)
                  .getResult();
    rewriter.replaceOp(op, {dq, kv.getDk(), kv.getDv()});
    return success();
  }

  attnc::TargetDescription target;
};

struct AttnExpandAttentionGradPass
    : attnc::impl::AttnExpandAttentionGradBase<AttnExpandAttentionGradPass> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<attnc::TargetDescription> targetDescription =
        attnc::TargetDescription::get(target, "auto", [&] {
          return getOperation().emitError();
        });
    if (failed(targetDescription))
      return signalPassFailure();
    WalkResult underived = getOperation().walk([](attn::AttentionGradOp op) {
      if (op.getScore().empty() || !op.getScoreGrad().empty())
        return WalkResult::advance();
      op.emitOpError() << "has a score region without its derivative; run "
                          "attn-differentiate-score first";
      return WalkResult::interrupt();
    });
    if (underived.wasInterrupted())
      return signalPassFailure();
    ConversionTarget target(getContext());
    target.addIllegalOp<attn::AttentionGradOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandAttentionGrad>(&getContext(), *targetDescription);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
