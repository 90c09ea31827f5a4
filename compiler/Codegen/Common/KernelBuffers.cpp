//===- KernelBuffers.cpp - The buffers a kernel op reads and writes -------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/Common/KernelBuffers.h"

#include "compiler/Codegen/Common/ElementKernel.h"
#include "dialects/attn/AttnOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"

using namespace mlir;

/// The buffers of `op` in destination-passing form, or why it is not.
static FailureOr<attnc::KernelBuffers> findKernelBuffers(Operation *op,
                                                         StringRef &why) {
  attnc::KernelBuffers buffers;
  for (Value operand : op->getOperands()) {
    auto read = operand.getDefiningOp<bufferization::ToTensorOp>();
    if (!read) {
      why = "an operand is not read from a buffer (bufferization.to_tensor)";
      return failure();
    }
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
        !isa<BaseMemRefType>(write.getDest().getType())) {
      why = "a result is not written into exactly one buffer "
            "(bufferization.materialize_in_destination)";
      return failure();
    }
    buffers.results.push_back(write.getDest());
    buffers.writes.push_back(write);
  }
  return buffers;
}

FailureOr<attnc::KernelBuffers>
attnc::matchKernelBuffers(Operation *op, RewriterBase &rewriter) {
  StringRef why;
  FailureOr<KernelBuffers> buffers = findKernelBuffers(op, why);
  if (failed(buffers))
    return rewriter.notifyMatchFailure(op, why);
  return buffers;
}

/// Kernel ops are lowered from a kernel function of attn-form-programs:
/// operands read from buffers, each kept result written into one.
static LogicalResult checkDestinationPassing(Operation *op) {
  StringRef why;
  if (failed(findKernelBuffers(op, why)))
    return op->emitError() << "expected a kernel op in destination-passing "
                              "form (run attn-form-programs first): "
                           << why;
  return success();
}

void attnc::eraseKernelOp(Operation *op, const KernelBuffers &buffers,
                          RewriterBase &rewriter) {
  for (Operation *write : buffers.writes)
    rewriter.eraseOp(write);
  rewriter.eraseOp(op);
}

/// A located error for each kernel op a lowering cannot take, so that the
/// conversion itself never fails without saying why.
static LogicalResult
checkKernelOp(Operation *op,
              function_ref<LogicalResult(Operation *)> checkTarget) {
  auto kernelOp = dyn_cast<attn::KernelOpInterface>(op);
  if (!kernelOp)
    return op->emitError() << "code generation does not support "
                           << op->getName() << " yet";
  if (!kernelOp.hasKernelConfig())
    return op->emitError() << "the kernel configuration is not set: run "
                              "attn-kernel-config first";
  if (failed(checkDestinationPassing(op)))
    return failure();
  if (auto castOp = dyn_cast<attn::CastOp>(op))
    if (failed(attnc::checkCastKernel(castOp)))
      return failure();
  return checkTarget ? checkTarget(op) : success();
}

LogicalResult attnc::lowerKernelOps(
    Operation *root, RewritePatternSet &&patterns,
    function_ref<LogicalResult(Operation *)> checkTarget) {
  WalkResult checked = root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (!isa_and_nonnull<attn::AttnDialect>(op->getDialect()))
      return WalkResult::advance();
    return failed(checkKernelOp(op, checkTarget)) ? WalkResult::interrupt()
                                                  : WalkResult::skip();
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
