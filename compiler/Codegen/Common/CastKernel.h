//===- CastKernel.h - The element work of attn.cast kernels -----*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A cast kernel is a grid of blocks of `block_size` consecutive elements in
// row-major order; the host runs a block's elements in a loop, a GPU block
// spreads them over its threads. Both convert elements here.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_CODEGEN_COMMON_CASTKERNEL_H
#define ATTNC_COMPILER_CODEGEN_COMMON_CASTKERNEL_H

#include "mlir/IR/Builders.h"

namespace mlir::attn {
class CastOp;
} // namespace mlir::attn

namespace attnc {

/// The number of elements of `buffer` (an index value).
mlir::Value numElements(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value buffer);

/// out = convert(in * scale) for the element at row-major position `linear`
/// of `in` (and `out`, of the same shape). The product is computed in f32
/// and rounded once to the result type (nearest even).
void emitCastElement(mlir::OpBuilder &b, mlir::Location loc,
                     mlir::attn::CastOp op, mlir::Value in, mlir::Value out,
                     mlir::Value linear);

/// Whether code generation can convert between `op`'s element types, with
/// a diagnostic on the op when not.
mlir::LogicalResult checkCastTypes(mlir::attn::CastOp op);

} // namespace attnc

#endif // ATTNC_COMPILER_CODEGEN_COMMON_CASTKERNEL_H
