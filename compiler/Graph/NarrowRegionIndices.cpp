//===- NarrowRegionIndices.cpp - 32-bit position arithmetic in regions ----===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Mask and score regions compute on the (b, h, q_idx, k_idx) of each pair
// as `index`, 64 bits in every kernel. Kernels inline a score region once
// per score element, so ALiBi's
//
//   %d = arith.subi %q_idx, %k_idx : index
//   %di = arith.index_cast %d : index to i64
//   %df = arith.sitofp %di : i64 to f32
//
// costs a 64-bit subtraction and a 64-bit conversion per element beside
// the element's exp2. The indices lie in [0, extent), and the runtime
// refuses extents above 2^31 - 1, so such arithmetic fits 32 bits:
//
//   %q32 = arith.index_castui %q_idx : index to i32
//   %k32 = arith.index_castui %k_idx : index to i32
//   %d32 = arith.subi %q32, %k32 : i32
//   %df = arith.sitofp %d32 : i32 to f32
//
// Integer range analysis, seeded with those ranges (static extents give
// tighter ones), proves where; MLIR's narrowing patterns rewrite, and the
// folds here remove the round trips through index that they leave.
//
// Mask regions keep index: kernels evaluate them per element only on
// partial tiles, and the tile classifier bounds index and i64 values only.
//
//===----------------------------------------------------------------------===//

#include "compiler/Passes.h"
#include "dialects/attn/AttnOps.h"
#include "lib/support/Extents.h"
#include "mlir/Analysis/DataFlow/DeadCodeAnalysis.h"
#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace attnc {
#define GEN_PASS_DEF_ATTNNARROWREGIONINDICES
#include "compiler/Passes.h.inc"
} // namespace attnc

using namespace mlir;

namespace {

/// Integer ranges where the regions of scoring ops see their indices in
/// [0, extent): b, h, q_idx and k_idx are the mask region's first four
/// arguments and follow the score (and score_grad) regions' score.
class RegionIndexRanges : public dataflow::IntegerRangeAnalysis {
public:
  using IntegerRangeAnalysis::IntegerRangeAnalysis;

  void visitNonControlFlowArguments(
      Operation *op, const RegionSuccessor &successor,
      ArrayRef<dataflow::IntegerValueRangeLattice *> argLattices,
      unsigned firstIndex) override {
    auto scoring = dyn_cast<attn::AttentionScoringOpInterface>(op);
    if (!scoring)
      return IntegerRangeAnalysis::visitNonControlFlowArguments(
          op, successor, argLattices, firstIndex);
    Region *region = successor.getSuccessor();
    unsigned first = region == &scoring.getMask() ? 0 : 1;
    auto q = scoring.getQ().getType(), k = scoring.getK().getType();
    int64_t extents[] = {q.getDimSize(0), q.getDimSize(1), q.getDimSize(2),
                         k.getDimSize(2)};
    for (auto [i, lattice] : llvm::enumerate(argLattices)) {
      if (i < first || i >= first + 4) {
        setToEntryState(lattice);
        continue;
      }
      int64_t extent = extents[i - first];
      int64_t last = ShapedType::isDynamic(extent)
                         ? attnc::kMaxExtent - 1
                         : std::max<int64_t>(extent - 1, 0);
      unsigned width = IndexType::kInternalStorageBitWidth;
      auto range =
          ConstantIntRanges::fromSigned(APInt(width, 0), APInt(width, last));
      propagateIfChanged(lattice, lattice->join(IntegerValueRange(range)));
    }
  }
};

/// A cast of `index` to iM whose input was cast from iN, N < M, extends x
/// as the inner cast did (index_cast: signed, index_castui: unsigned).
/// MLIR's own fold covers only M = N.
template <typename OuterCast>
struct FoldCastChain : OpRewritePattern<OuterCast> {
  using OpRewritePattern<OuterCast>::OpRewritePattern;

  LogicalResult matchAndRewrite(OuterCast op,
                                PatternRewriter &rewriter) const override {
    Operation *inner = op.getIn().getDefiningOp();
    auto to = dyn_cast<IntegerType>(op.getType());
    if (!isa_and_nonnull<arith::IndexCastOp, arith::IndexCastUIOp>(inner) ||
        !to)
      return failure();
    Value x = inner->getOperand(0);
    auto from = dyn_cast<IntegerType>(x.getType());
    if (!from || from.getWidth() >= to.getWidth())
      return failure();
    if (isa<arith::IndexCastOp>(inner))
      rewriter.replaceOpWithNewOp<arith::ExtSIOp>(op, to, x);
    else
      rewriter.replaceOpWithNewOp<arith::ExtUIOp>(op, to, x);
    return success();
  }
};

/// A float conversion of an extended integer converts the integer itself:
/// sitofp(extsi x) is sitofp x, sitofp(extui x) and uitofp(extui x) are
/// uitofp x.
template <typename ToFloat>
struct FoldExtendedToFloat : OpRewritePattern<ToFloat> {
  using OpRewritePattern<ToFloat>::OpRewritePattern;

  LogicalResult matchAndRewrite(ToFloat op,
                                PatternRewriter &rewriter) const override {
    Operation *extend = op.getIn().getDefiningOp();
    if (auto zero = dyn_cast_or_null<arith::ExtUIOp>(extend)) {
      rewriter.replaceOpWithNewOp<arith::UIToFPOp>(op, op.getType(),
                                                   zero.getIn());
      return success();
    }
    auto sign = dyn_cast_or_null<arith::ExtSIOp>(extend);
    if (!sign || !isa<arith::SIToFPOp>(op))
      return failure();
    rewriter.replaceOpWithNewOp<arith::SIToFPOp>(op, op.getType(),
                                                 sign.getIn());
    return success();
  }
};

/// Keeps the solver's states in step with the rewrites: an erased op's
/// results may share their addresses with the values of a later op.
struct SolverListener : RewriterBase::Listener {
  explicit SolverListener(DataFlowSolver &solver) : solver(solver) {}
  void notifyOperationErased(Operation *op) override {
    for (Value result : op->getResults())
      solver.eraseState(result);
  }
  DataFlowSolver &solver;
};

struct NarrowRegionIndicesPass
    : attnc::impl::AttnNarrowRegionIndicesBase<NarrowRegionIndicesPass> {
  void runOnOperation() override {
    SmallVector<attn::AttentionScoringOpInterface> scoring;
    getOperation().walk(
        [&](attn::AttentionScoringOpInterface op) { scoring.push_back(op); });
    if (scoring.empty())
      return;
    DataFlowSolver solver;
    solver.load<dataflow::DeadCodeAnalysis>();
    solver.load<RegionIndexRanges>();
    if (failed(solver.initializeAndRun(getOperation())))
      return signalPassFailure();

    RewritePatternSet patterns(&getContext());
    arith::populateIntRangeNarrowingPatterns(patterns, solver, {32});
    patterns.add<FoldCastChain<arith::IndexCastOp>,
                 FoldCastChain<arith::IndexCastUIOp>,
                 FoldExtendedToFloat<arith::SIToFPOp>,
                 FoldExtendedToFloat<arith::UIToFPOp>>(&getContext());
    FrozenRewritePatternSet frozen(std::move(patterns));
    SolverListener listener(solver);
    GreedyRewriteConfig config;
    // The narrowing of a comparison reads the ranges of its original
    // operands, so the uses go before the definitions.
    config.setUseTopDownTraversal(false).setListener(&listener);
    for (attn::AttentionScoringOpInterface op : scoring)
      for (Region *region : op.getScoreRegions())
        if (failed(applyPatternsGreedily(*region, frozen, config)))
          return signalPassFailure();
  }
};

} // namespace
