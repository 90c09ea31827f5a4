//===- KernelBuffers.h - The buffers a kernel op reads and writes -*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Program formation outlines each kernel op into a kernel function over
// buffers (memrefs) in destination-passing style: the op's operands are
// `bufferization.to_tensor` of argument buffers and each result that is
// kept is written into one by `bufferization.materialize_in_destination`.
// The target lowerings' patterns read the buffers from there, and share the
// conversion that runs them.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_CODEGEN_COMMON_KERNELBUFFERS_H
#define ATTNC_COMPILER_CODEGEN_COMMON_KERNELBUFFERS_H

#include "mlir/Transforms/DialectConversion.h"

namespace attnc {

struct KernelBuffers {
  /// The buffer each operand is read from.
  llvm::SmallVector<mlir::Value> operands;
  /// The buffer each result is written into; null for a result nothing
  /// keeps.
  llvm::SmallVector<mlir::Value> results;
  /// The ops that write the results, which the lowering replaces.
  llvm::SmallVector<mlir::Operation *> writes;
};

/// Reads the buffers of `op`, or reports on `rewriter` why `op` is not in
/// destination-passing form.
mlir::FailureOr<KernelBuffers> matchKernelBuffers(mlir::Operation *op,
                                                  mlir::RewriterBase &rewriter);

/// Erases the result writes and `op` itself, once the lowering has written
/// the result buffers.
void eraseKernelOp(mlir::Operation *op, const KernelBuffers &buffers,
                   mlir::RewriterBase &rewriter);

/// A target lowering of kernel op `Op`: `lower` writes the result buffers
/// from the operand buffers; the op and its writes then go.
template <typename Op>
class KernelOpLowering : public mlir::OpConversionPattern<Op> {
public:
  using mlir::OpConversionPattern<Op>::OpConversionPattern;

  mlir::LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor,
                  mlir::ConversionPatternRewriter &rewriter) const final {
    mlir::FailureOr<KernelBuffers> buffers = matchKernelBuffers(op, rewriter);
    if (mlir::failed(buffers))
      return mlir::failure();
    lower(op, *buffers, rewriter);
    eraseKernelOp(op, *buffers, rewriter);
    return mlir::success();
  }

protected:
  virtual void lower(Op op, const KernelBuffers &buffers,
                     mlir::ConversionPatternRewriter &rewriter) const = 0;
};

/// Lowers every kernel op below `root` by `patterns`, a conversion in which
/// the attn dialect is illegal. Each op is checked first, with a located
/// error: it must be a KernelOpInterface op with its kernel configuration,
/// in destination-passing form, a kind code generation supports (casts:
/// checkCastKernel), and pass the target's own `checkTarget`. Nothing
/// folds: a kernel op is the whole kernel, and an identity cast outlined as
/// a copy must not vanish.
mlir::LogicalResult lowerKernelOps(
    mlir::Operation *root, mlir::RewritePatternSet &&patterns,
    llvm::function_ref<mlir::LogicalResult(mlir::Operation *)> checkTarget =
        nullptr);

} // namespace attnc

#endif // ATTNC_COMPILER_CODEGEN_COMMON_KERNELBUFFERS_H
