//===- ElementKernel.h - Kernels that work element by element ---*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// attn.cast, attn.elementwise and attn.attention_combine do independent
// work per element of one buffer. Their kernels are a grid of blocks of
// `block_size` consecutive elements in row-major order; the host runs a block's
// elements in a loop, a GPU block spreads them over its threads. What each
// element does is written once, here, for one element or for a chunk of
// consecutive ones read and written as vectors (16 bytes and more per
// access, where one element of 2 bytes per thread would leave most of the
// memory bandwidth unused).
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_CODEGEN_COMMON_ELEMENTKERNEL_H
#define ATTNC_COMPILER_CODEGEN_COMMON_ELEMENTKERNEL_H

#include "compiler/Codegen/Common/KernelBuffers.h"
#include "compiler/Codegen/Common/VectorAccess.h"
#include "dialects/attn/AttnOps.h"
#include "mlir/IR/Builders.h"

#include <functional>

namespace attnc {

/// The work of an element kernel: `element(b, loc, indices)` does the work
/// of the element at `indices` of buffer `shape`.
struct ElementWork {
  mlir::Value shape;
  int64_t blockSize = 0;
  std::function<void(mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>
      element;
  /// The element's work in two halves, when it has that form: `load` reads
  /// what the element at `indices` needs, `finish` computes and writes it
  /// from those values. emitElementRun uses them.
  std::function<llvm::SmallVector<mlir::Value>(
      mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>
      load;
  std::function<void(mlir::OpBuilder &, mlir::Location, mlir::ValueRange,
                     mlir::ValueRange)>
      finish;
  /// The vector form, where `width` > 1: `chunk(b, loc, p)` does the work
  /// of the `width` elements at row-major positions [p, p + width), p a
  /// multiple of `width`, with one vector access per buffer and chunk. It
  /// may run only where each of `vectorBuffers` is dense and starts at a
  /// 16-byte boundary (vectorFormApplies), or, with `alignedRowsSuffice`
  /// (a chunk that reads and writes through each buffer's own strides),
  /// where each has rows of unit stride at 16-byte boundaries.
  int64_t width = 1;
  std::function<void(mlir::OpBuilder &, mlir::Location, mlir::Value)> chunk;
  llvm::SmallVector<mlir::Value> vectorBuffers;
  bool alignedRowsSuffice = false;
};

/// attn.cast: out = convert(in * scale), per element of in. The product is
/// computed in f32 and rounded once to the result type (nearest even).
ElementWork castWork(mlir::attn::CastOp op, const KernelBuffers &buffers);

/// attn.elementwise: out = round(body(f32(in0), f32(in1), ...)), per
/// element of out; the body computes in f32.
ElementWork elementwiseWork(mlir::attn::ElementwiseOp op,
                            const KernelBuffers &buffers);

/// attn.attention_combine: per element (b, h, i, d) of out, the key ranges
/// merged by their lse; the d = 0 element also writes lse.
ElementWork combineWork(mlir::attn::AttentionCombineOp op,
                        const KernelBuffers &buffers);

/// attn.split_heads and attn.merge_heads: per element of out, the element
/// of the other layout, rotated with its partner (i +- R/2) when there are
/// rotary tables and it is among the first R dims of its head.
ElementWork splitHeadsWork(mlir::attn::SplitHeadsOp op,
                           const KernelBuffers &buffers);
ElementWork mergeHeadsWork(mlir::attn::MergeHeadsOp op,
                           const KernelBuffers &buffers);

/// The grid of `work`: the element count and the number of blocks.
struct ElementGrid {
  mlir::Value count, blockSize, blocks;
};
ElementGrid elementGrid(mlir::OpBuilder &b, mlir::Location loc,
                        const ElementWork &work);

/// The row-major positions [first, end) of block `block` of `grid`.
std::pair<mlir::Value, mlir::Value> elementBlockRange(mlir::OpBuilder &b,
                                                      mlir::Location loc,
                                                      const ElementGrid &grid,
                                                      mlir::Value block);

/// The work of the elements at row-major positions begin, begin + step,
/// ... below `end`. The multi-index is computed once and then stepped, so
/// the loop does no division.
void emitElementLoop(mlir::OpBuilder &b, mlir::Location loc,
                     const ElementWork &work, mlir::Value begin,
                     mlir::Value end, int64_t step);

/// The work of the `count` elements at row-major positions begin, begin +
/// step, ... as straight-line code: all their loads first, then their
/// computations and stores, so that the loads are in flight together (a
/// loop cannot hoist the next element's loads above this one's stores,
/// which may alias them). Needs `work.load` and `work.finish`.
void emitElementRun(mlir::OpBuilder &b, mlir::Location loc,
                    const ElementWork &work, mlir::Value begin, int64_t count,
                    int64_t step);

/// Whether every buffer of `work.vectorBuffers` is dense and row-major and
/// starts at a 16-byte boundary (an i1): where the vector form may run.
mlir::Value vectorFormApplies(mlir::OpBuilder &b, mlir::Location loc,
                              const ElementWork &work);

/// The elements [begin, end) of one thread's block: whole chunks by the
/// vector form where it applies (and work.blockSize is a multiple of
/// work.width), the rest one by one (emitElementLoop).
void emitElementChunks(mlir::OpBuilder &b, mlir::Location loc,
                       const ElementWork &work, mlir::Value begin,
                       mlir::Value end);

/// A target lowering of the element kernel of `Op` (which has a work
/// function above): `lowerElements` builds its grid and loops.
template <typename Op, ElementWork (*Work)(Op, const KernelBuffers &)>
class ElementKernelLowering : public KernelOpLowering<Op> {
public:
  using KernelOpLowering<Op>::KernelOpLowering;

protected:
  void lower(Op op, const KernelBuffers &buffers,
             mlir::ConversionPatternRewriter &rewriter) const final {
    lowerElements(op.getLoc(), Work(op, buffers), rewriter);
  }
  virtual void
  lowerElements(mlir::Location loc, const ElementWork &work,
                mlir::ConversionPatternRewriter &rewriter) const = 0;
};

/// Whether code generation can build `op`'s kernel (element types it
/// converts between), with a diagnostic on the op when not.
mlir::LogicalResult checkCastKernel(mlir::attn::CastOp op);

} // namespace attnc

#endif // ATTNC_COMPILER_CODEGEN_COMMON_ELEMENTKERNEL_H
