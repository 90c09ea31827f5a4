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

#include "compiler/Codegen/Common/KernelBuffers.h"
#include "dialects/attn/AttnOps.h"
#include "mlir/IR/Builders.h"

namespace attnc {

/// The grid of `op`'s kernel over its input `in`: the element count and the
/// number of blocks of block_size elements.
struct CastGrid {
  mlir::Value count, blockSize, blocks;
};
CastGrid castGrid(mlir::OpBuilder &b, mlir::Location loc,
                  mlir::attn::CastOp op, mlir::Value in);

/// The row-major positions [first, end) of block `block` of `grid`.
std::pair<mlir::Value, mlir::Value> castBlockRange(mlir::OpBuilder &b,
                                                   mlir::Location loc,
                                                   const CastGrid &grid,
                                                   mlir::Value block);

/// out = convert(in * scale) for the elements at row-major positions begin,
/// begin + step, ... below `end` of `in` (and `out`, of the same shape).
/// The product is computed in f32 and rounded once to the result type
/// (nearest even). The multi-index is computed once and then stepped, so
/// the loop does no division.
void emitCastLoop(mlir::OpBuilder &b, mlir::Location loc,
                  mlir::attn::CastOp op, mlir::Value in, mlir::Value out,
                  mlir::Value begin, mlir::Value end, int64_t step);

/// A target lowering of attn.cast: `lowerCast` converts the elements of
/// buffer `in` into buffer `out`.
class CastLowering : public KernelOpLowering<mlir::attn::CastOp> {
public:
  using KernelOpLowering::KernelOpLowering;

protected:
  void lower(mlir::attn::CastOp op, const KernelBuffers &buffers,
             mlir::ConversionPatternRewriter &rewriter) const final {
    lowerCast(op, buffers.operands[0], buffers.results[0], rewriter);
  }
  virtual void lowerCast(mlir::attn::CastOp op, mlir::Value in,
                         mlir::Value out,
                         mlir::ConversionPatternRewriter &rewriter) const = 0;
};

/// Whether code generation can build `op`'s kernel (element types it
/// converts between), with a diagnostic on the op when not.
mlir::LogicalResult checkCastKernel(mlir::attn::CastOp op);

} // namespace attnc

#endif // ATTNC_COMPILER_CODEGEN_COMMON_CASTKERNEL_H
