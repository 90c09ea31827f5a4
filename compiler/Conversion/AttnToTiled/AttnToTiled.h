//===- AttnToTiled.h - attn.attention to the tiled kernel form --*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_CONVERSION_ATTNTOTILED_ATTNTOTILED_H
#define ATTNC_COMPILER_CONVERSION_ATTNTOTILED_ATTNTOTILED_H

#include "dialects/attn/AttnOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace attnc {

/// A function that code generation can turn into one kernel: its body is a
/// single attn.attention on its arguments, and it returns the op's results.
struct AttentionKernelForm {
  mlir::attn::AttentionOp op;
  /// Per function result: true for the attention output, false for the lse.
  llvm::SmallVector<bool> resultIsOut;
};

/// Matches `func` against the kernel form; on mismatch emits an error at the
/// offending op saying what is supported.
mlir::FailureOr<AttentionKernelForm>
matchAttentionKernel(mlir::func::FuncOp func);

/// matchAttentionKernel for code generation: also requires the op's tile
/// sizes (attn-select-tiles or a `tiles` attribute).
mlir::FailureOr<AttentionKernelForm> matchTiledKernel(mlir::func::FuncOp func);

/// The memref types of a kernel's tensor arguments: the function's
/// arguments, then its results (see kernelMemRefType).
llvm::SmallVector<mlir::Type> kernelTensorTypes(mlir::func::FuncOp func);

/// The buffer type of a kernel argument for a tensor argument or result:
/// any strides, any offset, so callers can pass views of larger tensors.
mlir::MemRefType kernelMemRefType(mlir::Type tensorType);

/// The name of the packed host entry point of kernel `kernel`.
std::string hostEntryName(llvm::StringRef kernel);

} // namespace attnc

#endif // ATTNC_COMPILER_CONVERSION_ATTNTOTILED_ATTNTOTILED_H
