//===- ExpandLinearLoss.cpp - The fused LM-head loss by vocabulary chunks -===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
//   %losses, %lse = attn.linear_cross_entropy %h, %e, %labels
//
// becomes, per chunk c of the vocabulary (rows [o, o + n) of the table),
//
//   %e_c = tensor.extract_slice %e[o, 0] [n, C] [1, 1]
//   %logits_c = attn.matmul %h, %e_c {transpose_b}
//   %lse_c, %target_c = attn.cross_entropy_partial %logits_c, %labels
//                           {vocab_offset = o}
//
// then
//
//   %parts = tensor.concat dim(0) %lse_0, %lse_1, ...
//   %targets = tensor.concat dim(0) %target_0, %target_1, ...
//   %losses, %lse = attn.cross_entropy_combine %parts, %targets, %labels
//
// and its gradient, per chunk,
//
//   %logits_c = attn.matmul %h, %e_c {transpose_b}     (recomputed, unless
//                                       the forward is in the same function)
//   %dlogits_c = attn.cross_entropy_grad %logits_c, %labels, %lse, %dlosses
//                    {vocab_offset = o}
//   %de_c = attn.matmul %dlogits_c, %h {transpose_a}
//   %dh_c = attn.matmul %dlogits_c, %e_c + %dh_{c-1}   (f32)
//
// then %de = tensor.concat of the %de_c and %dh = attn.cast %dh_last. Program
// formation makes the slices views of the table and writes each %de_c and
// each chunk's part straight into its rows, so the only logits a step holds
// are one chunk's.
//
//===----------------------------------------------------------------------===//

#include "compiler/Passes.h"
#include "dialects/attn/AttnOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

namespace attnc {
#define GEN_PASS_DEF_ATTNEXPANDLINEARLOSS
#include "compiler/Passes.h.inc"
} // namespace attnc

using namespace mlir;

namespace {

/// One vocabulary chunk: rows [offset, offset + size) of the table.
struct Chunk {
  int64_t offset, size;
  Value table; // the slice
};

/// The table's chunks of `chunkSize` rows (the last one shorter), each a
/// slice.
SmallVector<Chunk> sliceTable(OpBuilder &b, Location loc, Value table,
                              int64_t chunkSize) {
  auto type = cast<RankedTensorType>(table.getType());
  int64_t rows = type.getDimSize(0), columns = type.getDimSize(1);
  SmallVector<Chunk> chunks;
  for (int64_t offset = 0; offset < rows; offset += chunkSize) {
    int64_t size = std::min(chunkSize, rows - offset);
    auto sliceType =
        RankedTensorType::get({size, columns}, type.getElementType());
    Value slice = tensor::ExtractSliceOp::create(
        b, loc, sliceType, table, ValueRange(), ValueRange(), ValueRange(),
        b.getDenseI64ArrayAttr({offset, 0}),
        b.getDenseI64ArrayAttr({size, columns}),
        b.getDenseI64ArrayAttr({1, 1}));
    chunks.push_back({offset, size, slice});
  }
  return chunks;
}

/// `a` times `b` (per the transposes), into `type`, plus `addend` if set.
Value product(OpBuilder &b, Location loc, Type type, Value lhs, Value rhs,
              Value addend, bool transposeA, bool transposeB) {
  UnitAttr unit = b.getUnitAttr();
  return attn::MatmulOp::create(
      b, loc, type, lhs, rhs, /*bias=*/Value(), addend,
      transposeA ? unit : UnitAttr(), transposeB ? unit : UnitAttr(),
      DenseI64ArrayAttr(), StringAttr(), StringAttr());
}

/// The chunk's logits h e_c^T, in h's element type: [r..., n].
Value chunkLogits(OpBuilder &b, Location loc, Value h, const Chunk &chunk) {
  auto hType = cast<RankedTensorType>(h.getType());
  SmallVector<int64_t> shape(hType.getShape().drop_back());
  shape.push_back(chunk.size);
  return product(b, loc, RankedTensorType::get(shape, hType.getElementType()),
                 h, chunk.table, Value(), false, true);
}

/// `values` as rows of one tensor (one value is itself).
Value concatRows(OpBuilder &b, Location loc, ArrayRef<Value> values) {
  if (values.size() == 1)
    return values.front();
  return tensor::ConcatOp::create(b, loc, /*dim=*/0, values);
}

/// A rewrite of `Op` into chunks of `chunkSize` table rows.
template <typename Op> struct ChunkPattern : OpConversionPattern<Op> {
  ChunkPattern(MLIRContext *context, int64_t chunkSize)
      : OpConversionPattern<Op>(context), chunkSize(chunkSize) {}

  int64_t chunkSize;
};

/// `op`'s gradients, a chunk at a time: each chunk's logits are
/// `logits[i]` where given (the forward's, in the same function), else
/// computed again. `lse` is the whole rows' (the forward's combine).
void expandGradient(ConversionPatternRewriter &rewriter,
                    attn::LinearCrossEntropyGradOp op, ArrayRef<Chunk> chunks,
                    ArrayRef<Value> logits, Value lse) {
  Location loc = op.getLoc();
  RankedTensorType hType = op.getH().getType();
  RankedTensorType tableType = op.getTable().getType();
  // dh sums a product per chunk: in f32, rounded once at the end.
  auto sumType = RankedTensorType::get(hType.getShape(), rewriter.getF32Type());
  Value dh;
  SmallVector<Value> dtable;
  for (auto [i, chunk] : llvm::enumerate(chunks)) {
    Value chunkLogitsValue = logits.empty()
                                 ? chunkLogits(rewriter, loc, op.getH(), chunk)
                                 : logits[i];
    Value dlogits = attn::CrossEntropyGradOp::create(
        rewriter, loc, chunkLogitsValue.getType(), chunkLogitsValue,
        op.getLabels(), lse, op.getDlosses(), op.getIgnoreIndexAttr(),
        rewriter.getI64IntegerAttr(chunk.offset), IntegerAttr());
    // dE_c first: then no buffer dies between the two products (dlogits
    // and the running dh are both read by the second), and a GPU runs
    // them side by side (attn-overlap-steps).
    auto rowsType = RankedTensorType::get({chunk.size, tableType.getDimSize(1)},
                                          tableType.getElementType());
    dtable.push_back(product(rewriter, loc, rowsType, dlogits, op.getH(),
                             Value(), true, false));
    dh =
        product(rewriter, loc, sumType, dlogits, chunk.table, dh, false, false);
  }
  if (hType.getElementType() != sumType.getElementType())
    dh = attn::CastOp::create(rewriter, loc, hType, dh, FloatAttr(),
                              IntegerAttr(), IntegerAttr());
  rewriter.replaceOp(op, {dh, concatRows(rewriter, loc, dtable)});
}

/// The gradient ops in `op`'s block of the same h, table and labels that
/// read its lse: a training step's backward of this loss.
SmallVector<attn::LinearCrossEntropyGradOp>
gradientsBeside(attn::LinearCrossEntropyOp op) {
  SmallVector<attn::LinearCrossEntropyGradOp> gradients;
  for (Operation *user : op.getLse().getUsers()) {
    auto grad = dyn_cast<attn::LinearCrossEntropyGradOp>(user);
    if (grad && grad->getBlock() == op->getBlock() &&
        grad.getLse() == op.getLse() && grad.getH() == op.getH() &&
        grad.getTable() == op.getTable() &&
        grad.getLabels() == op.getLabels() &&
        grad.getIgnoreIndex() == op.getIgnoreIndex())
      gradients.push_back(grad);
  }
  return gradients;
}

/// The forward; a gradient in the same function (a training step) reads
/// its chunks of logits instead of computing them again: one GEMM fewer a
/// chunk, for all chunks alive until the backward, as the step keeps every
/// other forward value the backward reads.
struct ExpandForward : ChunkPattern<attn::LinearCrossEntropyOp> {
  using ChunkPattern::ChunkPattern;

  LogicalResult
  matchAndRewrite(attn::LinearCrossEntropyOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto rows = cast<RankedTensorType>(op.getLse().getType());
    SmallVector<int64_t> partShape = {1};
    llvm::append_range(partShape, rows.getShape());
    auto partType = RankedTensorType::get(partShape, rewriter.getF32Type());
    SmallVector<Chunk> chunks =
        sliceTable(rewriter, loc, op.getTable(), chunkSize);
    SmallVector<Value> logits, lseParts, targets;
    for (const Chunk &chunk : chunks) {
      logits.push_back(chunkLogits(rewriter, loc, op.getH(), chunk));
      auto partial = attn::CrossEntropyPartialOp::create(
          rewriter, loc, partType, partType, logits.back(), op.getLabels(),
          op.getIgnoreIndexAttr(), rewriter.getI64IntegerAttr(chunk.offset),
          IntegerAttr());
      lseParts.push_back(partial.getLse());
      targets.push_back(partial.getTarget());
    }
    int64_t vocab = op.getTable().getType().getDimSize(0);
    Value parts = concatRows(rewriter, loc, lseParts);
    Value targetParts = concatRows(rewriter, loc, targets);
    auto combine = attn::CrossEntropyCombineOp::create(
        rewriter, loc, rows, rows, parts, targetParts, op.getLabels(),
        op.getIgnoreIndexAttr(), rewriter.getI64IntegerAttr(vocab),
        IntegerAttr());
    for (attn::LinearCrossEntropyGradOp grad : gradientsBeside(op)) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(grad);
      expandGradient(rewriter, grad, chunks, logits, combine.getLse());
    }
    rewriter.replaceOp(op, combine.getResults());
    return success();
  }
};

/// A gradient without its forward beside it (a backward function): the
/// logits computed again from the saved lse.
struct ExpandGradient : ChunkPattern<attn::LinearCrossEntropyGradOp> {
  using ChunkPattern::ChunkPattern;

  LogicalResult
  matchAndRewrite(attn::LinearCrossEntropyGradOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Chunk> chunks =
        sliceTable(rewriter, op.getLoc(), op.getTable(), chunkSize);
    expandGradient(rewriter, op, chunks, {}, op.getLse());
    return success();
  }
};

struct AttnExpandLinearLossPass
    : attnc::impl::AttnExpandLinearLossBase<AttnExpandLinearLossPass> {
  using Base::Base;

  void runOnOperation() override {
    if (vocabChunk < 1) {
      getOperation().emitError() << "vocab-chunk must be at least 1, got "
                                 << static_cast<int64_t>(vocabChunk);
      return signalPassFailure();
    }
    ConversionTarget target(getContext());
    target.addIllegalOp<attn::LinearCrossEntropyOp,
                        attn::LinearCrossEntropyGradOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandForward, ExpandGradient>(&getContext(), vocabChunk);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
