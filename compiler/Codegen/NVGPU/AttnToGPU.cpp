//===- AttnToGPU.cpp - Kernel ops to GPU launches -------------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Each kernel op becomes a gpu.launch over its grid. Attention: block
// (x, y, z) = (query block, head, batch) of the grid the host uses, with
// the kernel its tiles name. Cast: blocks of block_size elements, 256
// threads. Gradient kernels: the grids of GradBlock, their scalar form with
// f32 tiles in shared memory. Causal kernels take their blocks in the
// order of CausalBlockOrder: the most work first, a few heads at a time.
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/Common/ElementKernel.h"
#include "compiler/Codegen/Common/GradBlock.h"
#include "compiler/Codegen/Common/KernelBuffers.h"
#include "compiler/Codegen/Common/RowBlock.h"
#include "compiler/Codegen/Common/RowKernel.h"
#include "compiler/Codegen/Config/TargetDescription.h"
#include "compiler/Codegen/NVGPU/MmaAttention.h"
#include "compiler/Codegen/NVGPU/MmaAttentionGrad.h"
#include "compiler/Passes.h"
#include "dialects/attn/AttnOps.h"
#include "dialects/attngpu/AttnGPUOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace attnc {
#define GEN_PASS_DEF_CONVERTATTNTOGPU
#include "compiler/Passes.h.inc"
} // namespace attnc

using namespace mlir;

namespace {

/// The most threads of an element kernel's block.
constexpr int64_t kElementThreads = 256;

/// How the scalar kernel lays out one block: a thread per query row, and
/// the byte offsets of the f32 working tiles in dynamic shared memory. Rows
/// of the per-row tiles (q, s, acc) are padded by one element so that the
/// threads of a warp, one per row, hit different banks.
struct ScalarLayout {
  int64_t qRow, sRow, accRow; // padded row lengths, in elements
  int64_t qOffset, kOffset, vOffset, sOffset, accOffset, rowMaxOffset,
      rowSumOffset;
  int64_t bytes;
};

ScalarLayout getScalarLayout(attn::AttentionScoringOpInterface op) {
  int64_t blockM = op.getTiles()->getBlockM();
  int64_t blockN = op.getTiles()->getBlockN();
  int64_t headDim = op.getQ().getType().getDimSize(3);
  int64_t headDimV = op.getV().getType().getDimSize(3);
  ScalarLayout layout;
  layout.qRow = headDim + 1;
  layout.sRow = blockN + 1;
  layout.accRow = headDimV + 1;
  int64_t offset = 0;
  auto place = [&](int64_t elements) {
    int64_t at = offset;
    offset += elements * static_cast<int64_t>(sizeof(float));
    return at;
  };
  layout.qOffset = place(blockM * layout.qRow);
  layout.kOffset = place(blockN * headDim);
  layout.vOffset = place(blockN * headDimV);
  layout.sOffset = place(blockM * layout.sRow);
  layout.accOffset = place(blockM * layout.accRow);
  layout.rowMaxOffset = place(blockM);
  layout.rowSumOffset = place(blockM);
  layout.bytes = offset;
  return layout;
}

/// An f32 tile of `shape` at byte `offset` of dynamic shared memory.
Value sharedView(OpBuilder &b, Location loc, Value shared, int64_t offset,
                 ArrayRef<int64_t> shape) {
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  Value at = arith::ConstantIndexOp::create(b, loc, offset);
  auto type = MemRefType::get(shape, b.getF32Type(), nullptr, workgroup);
  return memref::ViewOp::create(b, loc, type, shared, at, ValueRange{});
}

/// The f32 tiles of the scalar kernel, as views of shared memory.
attnc::BlockTiles scalarTiles(OpBuilder &b, Location loc,
                              attn::AttentionScoringOpInterface op,
                              Value shared) {
  ScalarLayout layout = getScalarLayout(op);
  auto view = [&](int64_t offset, ArrayRef<int64_t> shape) {
    return sharedView(b, loc, shared, offset, shape);
  };
  int64_t blockM = op.getTiles()->getBlockM();
  int64_t blockN = op.getTiles()->getBlockN();
  int64_t headDim = op.getQ().getType().getDimSize(3);
  int64_t headDimV = op.getV().getType().getDimSize(3);
  return {view(layout.qOffset, {blockM, layout.qRow}),
          view(layout.kOffset, {blockN, headDim}),
          view(layout.vOffset, {blockN, headDimV}),
          view(layout.sOffset, {blockM, layout.sRow}),
          view(layout.accOffset, {blockM, layout.accRow}),
          view(layout.rowMaxOffset, {blockM}),
          view(layout.rowSumOffset, {blockM})};
}

/// A gpu.launch of `grid` blocks of `threads` threads with `sharedBytes` of
/// dynamic shared memory; `body(launch)` builds the block's work.
template <typename Fn>
void buildLaunch(OpBuilder &b, Location loc, ArrayRef<Value> grid,
                 int64_t threads, int64_t sharedBytes, Fn body) {
  auto constant = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value one = constant(1);
  Value shared = arith::ConstantOp::create(
      b, loc, b.getI32IntegerAttr(static_cast<int32_t>(sharedBytes)));
  auto launch = gpu::LaunchOp::create(b, loc, grid[0], grid[1], grid[2],
                                      constant(threads), one, one, shared);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&launch.getBody().front());
  body(launch);
  gpu::TerminatorOp::create(b, loc);
}

/// (Batch, head) pairs whose row blocks a causal launch interleaves: enough
/// blocks of each length in flight that the last wave holds short ones, few
/// enough heads that the rows they all walk stay in L2 (8 heads of 4k bf16
/// rows of 128 keys and values are 16 MiB).
constexpr int64_t kCausalHeadGroup = 8;

/// Block ids (row block, head, batch) of a causal kernel, in the order that
/// starts long blocks first: launch order walks groups of kCausalHeadGroup
/// (batch, head) pairs, in each group the row blocks from the most work to
/// the least, the group's pairs side by side. The most work is at the last
/// row block (query blocks) or the first (key blocks, `mostWorkLast`
/// false). The mapping is a permutation of the grid.
class CausalBlockOrder : attnc::KernelEmitter {
public:
  CausalBlockOrder(OpBuilder &b, Location loc) : KernelEmitter(b, loc) {}

  SmallVector<Value, 3> ids(gpu::LaunchOp launch, bool mostWorkLast) {
    gpu::KernelDim3 id = launch.getBlockIds();
    gpu::KernelDim3 grid = launch.getGridSize();
    Value pair = add(id.y, mul(grid.y, id.z));
    Value linear = add(id.x, mul(grid.x, pair));
    Value group = index(kCausalHeadGroup);
    Value firstPair = mul(divUI(linear, mul(grid.x, group)), group);
    Value inGroup = sub(linear, mul(firstPair, grid.x));
    Value groupPairs = arith::MinUIOp::create(
        b, loc, group, sub(mul(grid.y, grid.z), firstPair));
    Value step = divUI(inGroup, groupPairs);
    Value row = mostWorkLast ? sub(sub(grid.x, step), index(1)) : step;
    Value blockPair = add(firstPair, sub(inGroup, mul(step, groupPairs)));
    return {row, arith::RemUIOp::create(b, loc, blockPair, grid.y),
            divUI(blockPair, grid.y)};
  }
};

/// The block's ids: in launch order, or CausalBlockOrder's for causal
/// kernels.
SmallVector<Value, 3> blockIds(OpBuilder &b, Location loc, gpu::LaunchOp launch,
                               bool causal, bool mostWorkLast) {
  if (causal)
    return CausalBlockOrder(b, loc).ids(launch, mostWorkLast);
  gpu::KernelDim3 id = launch.getBlockIds();
  return {id.x, id.y, id.z};
}

Value dynamicSharedMemory(OpBuilder &b, Location loc) {
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto bytesType = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                   nullptr, workgroup);
  return gpu::DynamicSharedMemoryOp::create(b, loc, bytesType);
}

/// attn.attention, and attn.attention_split (its blocks see one key range
/// each).
template <typename Op> struct AttentionToGPU : attnc::KernelOpLowering<Op> {
  AttentionToGPU(MLIRContext *ctx, const attnc::TargetDescription &target)
      : attnc::KernelOpLowering<Op>(ctx), target(target) {}

  void lower(Op op, const attnc::KernelBuffers &buffers,
             ConversionPatternRewriter &rewriter) const override {
    attnc::AttentionBuffers x(buffers);
    Location loc = op.getLoc();
    bool tensorCores = op.getTiles()->getMma() != attn::MmaKind::None;
    attnc::MmaSharedLayout mmaLayout;
    if (tensorCores)
      mmaLayout = attnc::getMmaSharedLayout(op, target.sharedMemoryPerBlock);
    int64_t threads =
        tensorCores ? attnc::mmaThreads(op) : op.getTiles()->getBlockM();
    int64_t sharedBytes =
        tensorCores ? mmaLayout.bytes : getScalarLayout(op).bytes;
    buildLaunch(rewriter, loc, attnc::attentionGrid(rewriter, loc, op, x),
                threads, sharedBytes, [&](gpu::LaunchOp launch) {
                  SmallVector<Value, 3> block =
                      blockIds(rewriter, loc, launch, op.getCausal(),
                               /*mostWorkLast=*/true);
                  attnc::BlockIds ids = attnc::attentionBlockIds(
                      rewriter, loc, op, block[0], block[1], block[2]);
                  Value shared = dynamicSharedMemory(rewriter, loc);
                  Value thread = launch.getThreadIds().x;
                  if (tensorCores)
                    attnc::emitMmaAttention(rewriter, loc, op, x, mmaLayout,
                                            shared, thread, ids);
                  else
                    attnc::emitRowBlock(rewriter, loc, op, x,
                                        scalarTiles(rewriter, loc, op, shared),
                                        ids, thread);
                });
  }

  const attnc::TargetDescription &target;
};

/// The gradient kernels' f32 tiles, one after the other in dynamic shared
/// memory, rows padded by one element (their threads walk rows).
constexpr int64_t kGradTilePad = 1;

int64_t gradSharedBytes(attn::AttentionScoringOpInterface op) {
  int64_t elements = 0;
  for (const SmallVector<int64_t, 2> &shape :
       attnc::gradTileShapes(op, kGradTilePad))
    elements += shape.size() == 1 ? shape[0] : shape[0] * shape[1];
  return elements * static_cast<int64_t>(sizeof(float));
}

/// Delta: a warp per row of the block, or several rows per warp by 16-byte
/// loads where the head dim and the buffers allow.
struct GradDeltaToGPU : attnc::KernelOpLowering<attn::AttentionGradDeltaOp> {
  using KernelOpLowering::KernelOpLowering;

  void lower(attn::AttentionGradDeltaOp op, const attnc::KernelBuffers &buffers,
             ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    buildLaunch(rewriter, loc, attnc::gradDeltaGrid(rewriter, loc, op, buffers),
                attnc::gradKernelThreads(op), 0, [&](gpu::LaunchOp launch) {
                  gpu::KernelDim3 block = launch.getBlockIds();
                  attnc::emitGradDeltaBlock(rewriter, loc, op, buffers,
                                            {block.x, block.y, block.z},
                                            launch.getThreadIds().x);
                });
  }
};

/// The norms, losses, their gradients and attn.sum_rows: RowKernel's
/// blocks, a warp per row or a thread per column.
template <typename Op> struct RowKernelToGPU : attnc::KernelOpLowering<Op> {
  using attnc::KernelOpLowering<Op>::KernelOpLowering;

  void lower(Op op, const attnc::KernelBuffers &buffers,
             ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value blocks = attnc::rowKernelGrid(rewriter, loc, op, buffers);
    int64_t threads = attnc::rowKernelThreads(op);
    SmallVector<int64_t> scratchShape = attnc::rowKernelScratchShape(op);
    int64_t sharedBytes =
        scratchShape.empty() ? 0 : scratchShape[0] * scratchShape[1] * 4;
    buildLaunch(rewriter, loc, {blocks, one, one}, threads, sharedBytes,
                [&](gpu::LaunchOp launch) {
                  Value scratch =
                      sharedBytes
                          ? sharedView(rewriter, loc,
                                       dynamicSharedMemory(rewriter, loc), 0,
                                       scratchShape)
                          : Value();
                  attnc::emitRowKernelBlock(rewriter, loc, op, buffers,
                                            launch.getBlockIds().x,
                                            launch.getThreadIds().x, scratch);
                });
  }
};

bool usesTensorCores(attn::AttentionScoringOpInterface op) {
  return op.getTiles()->getMma() != attn::MmaKind::None;
}

/// Key/value and query gradient kernels: on mma.sync (MmaAttentionGrad.h)
/// or in their scalar form, with f32 tiles in shared memory.
template <typename Op> struct GradTilesToGPU : attnc::KernelOpLowering<Op> {
  using Emit = void (*)(OpBuilder &, Location, Op, const attnc::KernelBuffers &,
                        const attnc::GradTiles &, ValueRange, Value);
  using EmitMma = void (*)(OpBuilder &, Location, Op,
                           const attnc::KernelBuffers &,
                           const attnc::MmaGradLayout &, Value, Value,
                           ValueRange);

  GradTilesToGPU(MLIRContext *context, Emit emit, EmitMma emitMma)
      : attnc::KernelOpLowering<Op>(context), emit(emit), emitMma(emitMma) {}

  void lower(Op op, const attnc::KernelBuffers &buffers,
             ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    bool mma = usesTensorCores(op);
    attnc::MmaGradLayout mmaLayout;
    if (mma)
      mmaLayout = attnc::getMmaGradLayout(op);
    buildLaunch(
        rewriter, loc, attnc::gradKernelGrid(rewriter, loc, op, buffers),
        mma ? attnc::mmaThreads(op) : attnc::gradKernelThreads(op),
        mma ? mmaLayout.bytes : gradSharedBytes(op), [&](gpu::LaunchOp launch) {
          Value shared = dynamicSharedMemory(rewriter, loc);
          // Key blocks near the start walk the most query tiles.
          SmallVector<Value, 3> ids =
              blockIds(rewriter, loc, launch, causalOrder(op),
                       /*mostWorkLast=*/!isa<attn::AttentionGradKVOp>(op));
          Value thread = launch.getThreadIds().x;
          if (mma)
            return emitMma(rewriter, loc, op, buffers, mmaLayout, shared,
                           thread, ids);
          emit(rewriter, loc, op, buffers,
               scalarGradTiles(rewriter, loc, op, shared), ids, thread);
        });
  }

  /// Whether the blocks take CausalBlockOrder's order: not those of a
  /// key/value kernel that adds dq (H200, B1 H16 N16k D64 causal: 0.96x
  /// the grid order).
  static bool causalOrder(Op op) {
    auto kv = dyn_cast<attn::AttentionGradKVOp>(op.getOperation());
    return op.getCausal() && !(kv && kv.getDqAccum());
  }

  static attnc::GradTiles scalarGradTiles(OpBuilder &b, Location loc, Op op,
                                          Value shared) {
    int64_t offset = 0;
    return attnc::makeGradTiles(op, kGradTilePad, [&](ArrayRef<int64_t> shape) {
      Value view = sharedView(b, loc, shared, offset, shape);
      offset += shape.size() == 1 ? shape[0] * 4 : shape[0] * shape[1] * 4;
      return view;
    });
  }

  Emit emit;
  EmitMma emitMma;
};

/// Thread t's elements of its block [first, end), from `start`: as
/// straight-line code with its loads in flight together when the block is
/// whole and the work splits its loads from its stores, else in a loop.
void emitThreadElements(OpBuilder &b, Location loc,
                        const attnc::ElementWork &work, Value first, Value end,
                        Value start, int64_t threads) {
  int64_t perThread = work.blockSize / threads;
  if (!work.load || work.blockSize % threads != 0 || perThread == 1)
    return attnc::emitElementLoop(b, loc, work, start, end, threads);
  Value whole = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      arith::SubIOp::create(b, loc, end, first),
      arith::ConstantIndexOp::create(b, loc, work.blockSize));
  scf::IfOp::create(
      b, loc, whole,
      [&](OpBuilder &then, Location) {
        attnc::emitElementRun(then, loc, work, start, perThread, threads);
        scf::YieldOp::create(then, loc);
      },
      [&](OpBuilder &otherwise, Location) {
        attnc::emitElementLoop(otherwise, loc, work, start, end, threads);
        scf::YieldOp::create(otherwise, loc);
      });
}

/// attn.cast, attn.elementwise, attn.split_heads, attn.merge_heads and
/// attn.attention_combine: a block's threads take its elements in turn
/// (thread t of block x: elements x * block_size + t + 256 i), or, for a
/// work with a vector form of block_size / 256 elements, when the block is
/// whole and its buffers aligned, thread t takes the chunk at x *
/// block_size + t * width, and any other block loops element by element
/// (a straight-line run there would hold the kernel at twice the registers).
template <typename Op,
          attnc::ElementWork (*Work)(Op, const attnc::KernelBuffers &)>
struct ElementsToGPU : attnc::ElementKernelLowering<Op, Work> {
  using attnc::ElementKernelLowering<Op, Work>::ElementKernelLowering;

  void lowerElements(Location loc, const attnc::ElementWork &work,
                     ConversionPatternRewriter &rewriter) const override {
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    int64_t threads = std::min(work.blockSize, kElementThreads);
    buildLaunch(
        rewriter, loc,
        {attnc::elementGrid(rewriter, loc, work).blocks, one, one}, threads, 0,
        [&](gpu::LaunchOp launch) {
          // Recomputed inside: a kernel body reads only its buffers.
          attnc::ElementGrid grid = attnc::elementGrid(rewriter, loc, work);
          auto [first, end] = attnc::elementBlockRange(rewriter, loc, grid,
                                                       launch.getBlockIds().x);
          Value thread = launch.getThreadIds().x;
          Value start = arith::AddIOp::create(rewriter, loc, first, thread);
          if (work.width == 1 || work.width * threads != work.blockSize)
            return emitThreadElements(rewriter, loc, work, first, end, start,
                                      threads);
          // A whole block of dense, aligned buffers: a chunk per thread.
          Value whole = arith::AndIOp::create(
              rewriter, loc,
              arith::CmpIOp::create(
                  rewriter, loc, arith::CmpIPredicate::eq,
                  arith::SubIOp::create(rewriter, loc, end, first),
                  grid.blockSize),
              attnc::vectorFormApplies(rewriter, loc, work));
          scf::IfOp::create(
              rewriter, loc, whole,
              [&](OpBuilder &then, Location) {
                Value chunk = arith::MulIOp::create(
                    then, loc, thread,
                    arith::ConstantIndexOp::create(then, loc, work.width));
                work.chunk(then, loc,
                           arith::AddIOp::create(then, loc, first, chunk));
                scf::YieldOp::create(then, loc);
              },
              [&](OpBuilder &otherwise, Location) {
                attnc::emitElementLoop(otherwise, loc, work, start, end,
                                       threads);
                scf::YieldOp::create(otherwise, loc);
              });
        });
  }
};

/// Says, at the op, what keeps a kernel op from being lowered for
/// `target`: tiles without a tensor-core kind were configured for the host;
/// the tiles must fit a block's shared memory.
LogicalResult checkKernel(Operation *kernelOp,
                          const attnc::TargetDescription &target) {
  if (isa<attn::MatmulOp>(kernelOp))
    return kernelOp->emitError()
           << "GPU targets run attn.matmul as a library call (library = "
              "\"cublaslt\", then attn-library-calls); there is no "
              "generated GPU code for it";
  auto op = dyn_cast<attn::AttentionScoringOpInterface>(kernelOp);
  if (!op)
    return success();
  std::optional<attn::TilesAttr> tiles = op.getTiles();
  if (!tiles->getMma())
    return op->emitError() << "the kernel configuration is not set: run "
                              "attn-kernel-config for a GPU target first";
  bool forward = isa<attn::AttentionOp, attn::AttentionSplitOp>(kernelOp);
  int64_t bytes =
      !forward ? (usesTensorCores(op) ? attnc::getMmaGradLayout(op).bytes
                                      : gradSharedBytes(op))
      : *tiles->getMma() == attn::MmaKind::None
          ? getScalarLayout(op).bytes
          : attnc::getMmaSharedLayout(op, target.sharedMemoryPerBlock).bytes;
  if (bytes > target.sharedMemoryPerBlock)
    return op->emitError()
           << "tiles " << tiles->getBlockM() << "x" << tiles->getBlockN()
           << " need " << bytes << " bytes of shared memory per block, more "
           << "than the " << target.sharedMemoryPerBlock << " an "
           << target.name << " block has";
  return success();
}

struct ConvertAttnToGPUPass
    : attnc::impl::ConvertAttnToGPUBase<ConvertAttnToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<attnc::TargetDescription> target = attnc::TargetDescription::get(
        chip, "auto", [&] { return getOperation().emitError(); });
    if (failed(target))
      return signalPassFailure();
    if (!target->isGpu()) {
      getOperation().emitError() << "'" << chip << "' is not a GPU chip";
      return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    patterns.add<AttentionToGPU<attn::AttentionOp>,
                 AttentionToGPU<attn::AttentionSplitOp>>(&getContext(),
                                                         *target);
    patterns.add<
        ElementsToGPU<attn::CastOp, attnc::castWork>,
        ElementsToGPU<attn::ElementwiseOp, attnc::elementwiseWork>,
        ElementsToGPU<attn::AttentionCombineOp, attnc::combineWork>,
        ElementsToGPU<attn::SplitHeadsOp, attnc::splitHeadsWork>,
        ElementsToGPU<attn::MergeHeadsOp, attnc::mergeHeadsWork>,
        GradDeltaToGPU, RowKernelToGPU<attn::RmsNormOp>,
        RowKernelToGPU<attn::RmsNormGradOp>, RowKernelToGPU<attn::LayerNormOp>,
        RowKernelToGPU<attn::LayerNormGradOp>, RowKernelToGPU<attn::SumRowsOp>,
        RowKernelToGPU<attn::CrossEntropyOp>,
        RowKernelToGPU<attn::CrossEntropyGradOp>,
        RowKernelToGPU<attn::CrossEntropyPartialOp>,
        RowKernelToGPU<attn::CrossEntropyCombineOp>,
        RowKernelToGPU<attn::TokenMeanOp>,
        RowKernelToGPU<attn::TokenMeanGradOp>,
        RowKernelToGPU<attn::EmbeddingOp>,
        RowKernelToGPU<attn::EmbeddingGradOp>,
        RowKernelToGPU<attn::TokenOrderOp>>(&getContext());
    patterns.add<GradTilesToGPU<attn::AttentionGradKVOp>>(
        &getContext(), attnc::emitGradKVBlock, attnc::emitMmaGradKV);
    patterns.add<GradTilesToGPU<attn::AttentionGradQOp>>(
        &getContext(), attnc::emitGradQBlock, attnc::emitMmaGradQ);
    if (failed(attnc::lowerKernelOps(
            getOperation(), std::move(patterns),
            [&](Operation *op) { return checkKernel(op, *target); })))
      signalPassFailure();
  }
};

} // namespace
