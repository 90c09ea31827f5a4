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
// The target lowerings' patterns read the buffers from there.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_CODEGEN_COMMON_KERNELBUFFERS_H
#define ATTNC_COMPILER_CODEGEN_COMMON_KERNELBUFFERS_H

#include "mlir/IR/PatternMatch.h"

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

} // namespace attnc

#endif // ATTNC_COMPILER_CODEGEN_COMMON_KERNELBUFFERS_H
