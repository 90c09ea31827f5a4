//===- AttnToHost.cpp - Kernel ops to host loops --------------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Each kernel op becomes an scf.forall over its grid of blocks (x fastest
// when attn-host-block-ranges linearizes it); a block's body runs on one
// thread. Attention: grid (ceil(Nq / block_m), Hq, B), the block's working
// tiles allocated at its start (hoisted out of the block loop later), the
// recurrence of RowBlock. Cast: blocks of block_size elements. Matmul:
// the tiles of HostMatmul. The gradient kernels: the grids and blocks of
// GradBlock. Norms, row sums and losses: RowKernel's blocks.
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/Common/ElementKernel.h"
#include "compiler/Codegen/Common/GradBlock.h"
#include "compiler/Codegen/Common/KernelBuffers.h"
#include "compiler/Codegen/Common/RowBlock.h"
#include "compiler/Codegen/Common/RowKernel.h"
#include "compiler/Codegen/Host/HostMatmul.h"
#include "compiler/Passes.h"
#include "dialects/attn/AttnOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace attnc {
#define GEN_PASS_DEF_CONVERTATTNTOHOST
#include "compiler/Passes.h.inc"
} // namespace attnc

using namespace mlir;

namespace {

/// An scf.forall over `grid` whose body `body(ivs)` builds.
template <typename Fn>
void buildGrid(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> grid,
               Fn body) {
  auto forall = scf::ForallOp::create(b, loc, grid, ValueRange{},
                                      /*mapping=*/std::nullopt);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(forall.getBody());
  body(forall.getInductionVars());
}

/// attn.attention, and attn.attention_split (its blocks see one key range
/// each).
template <typename Op> struct AttentionToHost : attnc::KernelOpLowering<Op> {
  using attnc::KernelOpLowering<Op>::KernelOpLowering;

  void lower(Op op, const attnc::KernelBuffers &buffers,
             ConversionPatternRewriter &rewriter) const override {
    attnc::AttentionBuffers x(buffers);
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> grid =
        getAsOpFoldResult(attnc::attentionGrid(rewriter, loc, op, x));
    buildGrid(rewriter, loc, grid, [&](ValueRange ivs) {
      emitBlock(
          rewriter, loc, op, x,
          attnc::attentionBlockIds(rewriter, loc, op, ivs[0], ivs[1], ivs[2]));
    });
  }

  /// One block: its f32 working tiles, then RowBlock's recurrence.
  static void emitBlock(OpBuilder &b, Location loc,
                        attn::AttentionScoringOpInterface op,
                        const attnc::AttentionBuffers &x,
                        const attnc::BlockIds &ids) {
    int64_t blockM = op.getTiles()->getBlockM();
    int64_t blockN = op.getTiles()->getBlockN();
    int64_t headDim = op.getQ().getType().getDimSize(3);
    int64_t headDimV = op.getV().getType().getDimSize(3);
    auto alloc = [&](ArrayRef<int64_t> shape) {
      return memref::AllocOp::create(b, loc,
                                     MemRefType::get(shape, b.getF32Type()))
          .getResult();
    };
    attnc::BlockTiles t{alloc({blockM, headDim}),  alloc({blockN, headDim}),
                        alloc({blockN, headDimV}), alloc({blockM, blockN}),
                        alloc({blockM, headDimV}), alloc({blockM}),
                        alloc({blockM})};
    attnc::emitRowBlock(b, loc, op, x, t, ids, /*threadId=*/nullptr);
    for (Value buffer : {t.q, t.k, t.v, t.s, t.acc, t.rowMax, t.rowSum})
      memref::DeallocOp::create(b, loc, buffer);
  }
};

/// The gradient kernels: grids and blocks of GradBlock, a block's f32
/// tiles allocated at its start (hoisted later) and freed at its end.
struct GradDeltaToHost : attnc::KernelOpLowering<attn::AttentionGradDeltaOp> {
  using KernelOpLowering::KernelOpLowering;

  void lower(attn::AttentionGradDeltaOp op, const attnc::KernelBuffers &buffers,
             ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    buildGrid(
        rewriter, loc,
        getAsOpFoldResult(attnc::gradDeltaGrid(rewriter, loc, op, buffers)),
        [&](ValueRange ids) {
          attnc::emitGradDeltaBlock(rewriter, loc, op, buffers, ids,
                                    /*threadId=*/Value());
        });
  }
};

template <typename Op> struct GradTilesToHost : attnc::KernelOpLowering<Op> {
  using Emit = void (*)(OpBuilder &, Location, Op, const attnc::KernelBuffers &,
                        const attnc::GradTiles &, ValueRange, Value);

  GradTilesToHost(MLIRContext *context, Emit emit)
      : attnc::KernelOpLowering<Op>(context), emit(emit) {}

  void lower(Op op, const attnc::KernelBuffers &buffers,
             ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> grid =
        getAsOpFoldResult(attnc::gradKernelGrid(rewriter, loc, op, buffers));
    buildGrid(rewriter, loc, grid, [&](ValueRange ids) {
      SmallVector<Value> allocated;
      attnc::GradTiles tiles =
          attnc::makeGradTiles(op, /*pad=*/0, [&](ArrayRef<int64_t> shape) {
            allocated.push_back(memref::AllocOp::create(
                rewriter, loc, MemRefType::get(shape, rewriter.getF32Type())));
            return allocated.back();
          });
      emit(rewriter, loc, op, buffers, tiles, ids, /*threadId=*/Value());
      for (Value tile : allocated)
        memref::DeallocOp::create(rewriter, loc, tile);
    });
  }

  Emit emit;
};

/// attn.cast, attn.elementwise and attn.attention_combine: a thread runs a
/// block's elements.
template <typename Op,
          attnc::ElementWork (*Work)(Op, const attnc::KernelBuffers &)>
struct ElementsToHost : attnc::ElementKernelLowering<Op, Work> {
  using attnc::ElementKernelLowering<Op, Work>::ElementKernelLowering;

  void lowerElements(Location loc, const attnc::ElementWork &work,
                     ConversionPatternRewriter &rewriter) const override {
    attnc::ElementGrid grid = attnc::elementGrid(rewriter, loc, work);
    buildGrid(rewriter, loc, {grid.blocks}, [&](ValueRange ivs) {
      auto [first, end] = attnc::elementBlockRange(rewriter, loc, grid, ivs[0]);
      attnc::emitElementChunks(rewriter, loc, work, first, end);
    });
  }
};

/// attn.matmul: the host's own GEMM (HostMatmul).
struct MatmulToHost : attnc::KernelOpLowering<attn::MatmulOp> {
  using KernelOpLowering::KernelOpLowering;

  void lower(attn::MatmulOp op, const attnc::KernelBuffers &buffers,
             ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> grid =
        getAsOpFoldResult(attnc::hostMatmulGrid(rewriter, loc, op, buffers));
    buildGrid(rewriter, loc, grid, [&](ValueRange ids) {
      attnc::emitHostMatmulBlock(rewriter, loc, op, buffers, ids);
    });
  }
};

/// The norms, losses, their gradients and attn.sum_rows: RowKernel's
/// blocks, a thread each.
template <typename Op> struct RowKernelToHost : attnc::KernelOpLowering<Op> {
  using attnc::KernelOpLowering<Op>::KernelOpLowering;

  void lower(Op op, const attnc::KernelBuffers &buffers,
             ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value blocks = attnc::rowKernelGrid(rewriter, loc, op, buffers);
    buildGrid(rewriter, loc, {blocks}, [&](ValueRange ids) {
      attnc::emitRowKernelBlock(rewriter, loc, op, buffers, ids[0],
                                /*threadId=*/Value(), /*scratch=*/Value());
    });
  }
};

/// Ops the host has no code for.
LogicalResult checkHostKernel(Operation *op) {
  if (auto matmul = dyn_cast<attn::MatmulOp>(op); matmul && !matmul.getTile())
    return op->emitError() << "the host runs attn.matmul with its own tiles; "
                              "library "
                           << matmul.getLibraryAttr()
                           << " is for GPU targets (run attn-kernel-config "
                              "for the host)";
  return success();
}

struct ConvertAttnToHostPass
    : attnc::impl::ConvertAttnToHostBase<ConvertAttnToHostPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    MLIRContext *context = &getContext();
    patterns.add<AttentionToHost<attn::AttentionOp>,
                 AttentionToHost<attn::AttentionSplitOp>,
                 ElementsToHost<attn::CastOp, attnc::castWork>,
                 ElementsToHost<attn::ElementwiseOp, attnc::elementwiseWork>,
                 ElementsToHost<attn::AttentionCombineOp, attnc::combineWork>,
                 ElementsToHost<attn::SplitHeadsOp, attnc::splitHeadsWork>,
                 ElementsToHost<attn::MergeHeadsOp, attnc::mergeHeadsWork>>(
        context);
    patterns.add<
        GradDeltaToHost, MatmulToHost, RowKernelToHost<attn::RmsNormOp>,
        RowKernelToHost<attn::RmsNormGradOp>,
        RowKernelToHost<attn::LayerNormOp>,
        RowKernelToHost<attn::LayerNormGradOp>,
        RowKernelToHost<attn::SumRowsOp>, RowKernelToHost<attn::CrossEntropyOp>,
        RowKernelToHost<attn::CrossEntropyGradOp>,
        RowKernelToHost<attn::CrossEntropyPartialOp>,
        RowKernelToHost<attn::CrossEntropyCombineOp>,
        RowKernelToHost<attn::TokenMeanOp>,
        RowKernelToHost<attn::TokenMeanGradOp>,
        RowKernelToHost<attn::EmbeddingOp>,
        RowKernelToHost<attn::EmbeddingGradOp>,
        RowKernelToHost<attn::TokenOrderOp>>(context);
    patterns.add<GradTilesToHost<attn::AttentionGradKVOp>>(
        context, attnc::emitGradKVBlock);
    patterns.add<GradTilesToHost<attn::AttentionGradQOp>>(
        context, attnc::emitGradQBlock);
    if (failed(attnc::lowerKernelOps(getOperation(), std::move(patterns),
                                     checkHostKernel)))
      signalPassFailure();
  }
};

} // namespace
