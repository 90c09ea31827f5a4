//===- KernelBuffers.cpp - The buffers a kernel op reads and writes -------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/Common/KernelBuffers.h"

#include "compiler/Codegen/Common/CastKernel.h"
#include "dialects/attn/AttnOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"

using namespace mlir;

FailureOr<attnc::KernelBuffers>
attnc::matchKernelBuffers(Operation *op, RewriterBase &rewriter) {
  KernelBuffers buffers;
  for (Value operand : op->getOperands()) {
    auto read = operand.getDefiningOp<bufferization::ToTensorOp>();
    if (!read)
      return rewriter.notifyMatchFailure(op, "an operand is not read from a "
                                             "buffer (bufferization.to_tensor)");
    buffers.operands.push_back(read.getBuffer());
  }
  for (Value result : op->getResults()) {
    if (result.use_empty()) {
      buffers.results.push_back(Value());
      continue;
    }
    auto write = dyn_cast<bufferization::MaterializeInDestinationOp>(
        *result.getUsers().begin());
    if (!result.hasOneUse() || !write || !write.getDest() ||
        !isa<BaseMemRefType>(write.getDest().getType()))
      return rewriter.notifyMatchFailure(
          op, "a result is not written into exactly one buffer "
              "(bufferization.materialize_in_destination)");
    buffers.results.push_back(write.getDest());
    buffers.writes.push_back(write);
  }
  return buffers;
}

void attnc::eraseKernelOp(Operation *op, const KernelBuffers &buffers,
                          RewriterBase &rewriter) {
  for (Operation *write : buffers.writes)
    rewriter.eraseOp(write);
  rewriter.eraseOp(op);
}

LogicalResult attnc::lowerKernelOps(
    Operation *root, RewritePatternSet &&patterns,
    function_ref<LogicalResult(Operation *)> checkAttention) {
  WalkResult checked = root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (!isa_and_nonnull<attn::AttnDialect>(op->getDialect()))
      return WalkResult::advance();
    LogicalResult ok =
        isa<attn::AttentionOp>(op) ? checkAttention(op)
        : isa<attn::CastOp>(op)
            ? checkCastKernel(cast<attn::CastOp>(op))
            : LogicalResult(op->emitError()
                            << "code generation does not support "
                            << op->getName() << " yet");
    return failed(ok) ? WalkResult::interrupt() : WalkResult::skip();
  });
  if (checked.wasInterrupted())
    return failure();
  ConversionTarget target(*root->getContext());
  target.addIllegalDialect<attn::AttnDialect>();
  target.addLegalOp<attn::YieldOp>(); // erased with its op
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  ConversionConfig config;
  config.foldingMode = DialectConversionFoldingMode::Never;
  return applyPartialConversion(root, target, std::move(patterns), config);
}
