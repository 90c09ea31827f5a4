//===- HostMatmul.h - attn.matmul as host loops -----------------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The host's own GEMM: a grid of [tile rows x tile columns] blocks of the
// result's matrix view, each accumulated in f32 by one thread and rounded
// once. The GPU runs the op as a cuBLASLt call instead.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_CODEGEN_HOST_HOSTMATMUL_H
#define ATTNC_COMPILER_CODEGEN_HOST_HOSTMATMUL_H

#include "compiler/Codegen/Common/KernelBuffers.h"
#include "dialects/attn/AttnOps.h"

namespace attnc {

/// (ceil(N / tile columns), ceil(M / tile rows)) for out's matrix [M, N].
llvm::SmallVector<mlir::Value> hostMatmulGrid(mlir::OpBuilder &b,
                                              mlir::Location loc,
                                              mlir::attn::MatmulOp op,
                                              const KernelBuffers &buffers);

/// The block (`ids[0]` columns, `ids[1]` rows) of the result.
void emitHostMatmulBlock(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::attn::MatmulOp op, const KernelBuffers &buffers,
                         mlir::ValueRange ids);

} // namespace attnc

#endif // ATTNC_COMPILER_CODEGEN_HOST_HOSTMATMUL_H
