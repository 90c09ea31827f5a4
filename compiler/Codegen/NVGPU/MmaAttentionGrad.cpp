//===- MmaAttentionGrad.cpp - Tensor-core attention backward --------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// FlashAttention-2's backward on mma.sync, and its key/value kernel on
// wgmma. attention_grad_kv: a block of keys, a warp per 16 of them, dK and
// dV in registers across the query tiles of every head of the group:
//
//   Sᵀ = K Qᵀ, dPᵀ = V doutᵀ            (scores, keys as rows)
//   Pᵀ, dSᵀ per element                 (pairGradient, P from lse)
//   dV += Pᵀ dout, dK += dSᵀ Q           (Pᵀ, dSᵀ repacked as A fragments)
//   dq: dSᵀ to shared, then dS K added into the f32 accumulator by v2
//       reductions (attngpu.red_add)
//
// On mma.sync each warp computes 16 query rows of dS K over all the
// block's keys, dS read back transposed by ldmatrix. On wgmma a warpgroup
// owns 64 keys (the A rows of its products, swizzled tiles), issues dK and
// dV behind the per-element work and, while they run, its share of the
// columns of dS K for all 64 query rows over all the block's keys (A = dSᵀ
// read transposed): each dq element is added once per key block.
//
// attention_grad_q: a block of query rows, a warp per 16, dQ in registers:
//   S = Q Kᵀ, dP = dout Vᵀ, dS per element, dQ += dS K
// on either kind; on wgmma these are the forward's products (a warpgroup
// per 64 query rows, dS from registers as the forward's P).
//
// The walked tiles go through two stages of shared memory: the next one is
// copied with cp.async (element copies where strides do not allow it)
// while this one is used. One block barrier per tile, once its copies
// landed, also frees the previous tile's stage (and dSᵀ) for the next
// copies. With `producer` tiles (wgmma) a producer warpgroup loads them
// instead, by TMA, into a ring of three stages on mbarriers (StageRing.h),
// and the consumers only compute. The pieces are those of
// the forward kernel (MmaFragments.h, TileStager, StageRing.h) and the
// per-element gradient of the host and scalar kernels (GradBlock.h).
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/NVGPU/MmaAttentionGrad.h"

#include "compiler/Codegen/Common/GradBlock.h"
#include "compiler/Codegen/Common/RowSwizzle.h"
#include "compiler/Codegen/Common/TileClassifier.h"
#include "compiler/Codegen/NVGPU/MmaFragments.h"
#include "compiler/Codegen/NVGPU/StageRing.h"
#include "dialects/attngpu/AttnGPUOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using attnc::AFragment;
using P = arith::CmpIPredicate;

namespace {

class MmaGradKernel : attnc::KernelEmitter {
public:
  MmaGradKernel(OpBuilder &b, Location loc,
                attn::AttentionScoringOpInterface op, Region &scoreGrad,
                const attnc::KernelBuffers &x,
                const attnc::MmaGradLayout &layout, Value shared,
                Value threadId,
                std::optional<int64_t> rowSwizzle = std::nullopt)
      : KernelEmitter(b, loc), op(op), scoreGrad(scoreGrad), x(x),
        layout(layout), shared(shared), threadId(threadId),
        element(op.getQ().getType().getElementType()), sync(b, loc, element),
        wgmma(b, loc, element),
        stager(b, loc, attnc::stagingThread(b, loc, op, threadId),
               attnc::stagingThreads(op),
               /*rolled=*/attnc::mmaProducerThreads(op) > 0),
        barriers(b, loc, shared) {
    isWarpgroup = op.getTiles()->getMma() == attn::MmaKind::Warpgroup;
    this->rowSwizzle = rowSwizzle;
    blockM = op.getTiles()->getBlockM();
    blockN = op.getTiles()->getBlockN();
    headDim = op.getQ().getType().getDimSize(3);
    headDimV = op.getV().getType().getDimSize(3);
    threads = attnc::mmaThreads(op);
    consumers = attnc::mmaConsumerThreads(op);
    producer = attnc::mmaProducerThreads(op) > 0;
    // Before the tile loops, so that classifications may leave them.
    lane = arith::RemUIOp::create(b, loc, threadId, index(32));
  }

  void keyBlock(ValueRange ids, Value dk, Value dv, Value dqAccum);
  void queryBlock(ValueRange ids, Value dq);

private:
  /// The thread's place in the fragment layouts and the inputs' sources.
  void setUp() {
    lanes = sync.laneGeometry(threadId);
    warpgroup = arith::DivUIOp::create(b, loc, lanes.warp, index(4));
    localRow[0] = add(lanes.warpRow, lanes.group);
    localRow[1] = add(localRow[0], index(8));
    columnBase = mul(lanes.inGroup, index(2));
    qSource = stager.makeSource(operand(0));
    kSource = stager.makeSource(operand(1));
    vSource = stager.makeSource(operand(2));
    doutSource = stager.makeSource(operand(5));
    lseSource = stager.makeRowValuesSource(operand(3));
    deltaSource = stager.makeRowValuesSource(operand(4));
    diagonal = attnc::diagonalOffset(
        b, loc, op, memref::DimOp::create(b, loc, operand(0), 2),
        memref::DimOp::create(b, loc, operand(1), 2));
  }
  /// With `ping_pong` tiles the consumer warpgroups issue each tile's
  /// scores in turn; every warpgroup meets the same tiles.
  void takeTurns() {
    if (op.getTiles()->getPingPong().value_or(false))
      turn = attnc::TensorCoreTurn::start(b, loc, warpgroup, consumers / 128);
  }
  Value operand(int64_t i) { return x.operands[i]; }
  /// The valid query rows of the tile at `q0`, keys of the tile at `k0`.
  Value queryRowsFrom(Value q0) {
    return validRows(blockM, memref::DimOp::create(b, loc, operand(0), 2), q0);
  }
  Value keysFrom(Value k0) {
    return validRows(blockN, memref::DimOp::create(b, loc, operand(1), 2), k0);
  }
  /// The tile at `offset` of stage `stage` (null: the only one).
  Value tile(int64_t offset, const attnc::MmaTileLayout &tileLayout,
             Value stage = Value()) {
    return stager.sharedTile(shared, stageOffset(offset, stage), tileLayout,
                             element);
  }
  Value stageOffset(int64_t offset, Value stage) {
    return stage ? add(index(offset), mul(stage, index(layout.stageBytes)))
                 : index(offset);
  }
  Value f32Array(int64_t offset, int64_t n, Value stage = Value()) {
    return f32View(stageOffset(offset, stage), {n});
  }
  Value f32View(Value byteOffset, ArrayRef<int64_t> shape);
  /// The staged dq tile of the bulk reduction (blockM x headDim f32).
  Value stagedDq() {
    return f32View(index(layout.dqOffset), {blockM * headDim});
  }
  Value less(Value a, Value c) {
    return arith::CmpIOp::create(b, loc, P::ult, a, c);
  }
  Value both(Value a, Value c) { return arith::AndIOp::create(b, loc, a, c); }
  /// for iv in [lb, ub) step: state = body(iv, state). The body is built
  /// inside the finished loop op, so that the tile classifier can hoist
  /// what does not depend on the loop out of it.
  template <typename Fn>
  SmallVector<Value> carry(Value lb, Value ub, Value step, ValueRange init,
                           Fn body) {
    auto forOp = scf::ForOp::create(b, loc, lb, ub, step, init);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToEnd(forOp.getBody());
      scf::YieldOp::create(
          b, loc, body(forOp.getInductionVar(), forOp.getRegionIterArgs()));
    }
    return SmallVector<Value>(forOp.getResults());
  }
  /// Commits the copies issued since the last wait (maybe none), waits for
  /// them, and makes the landed tiles visible to the consumers (and to
  /// wgmma, which reads shared memory through the async proxy). Past the
  /// barrier every consumer is also done with the previous tile: its stage
  /// is free for the next copies.
  void waitForCopies() {
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
    NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
    if (isWarpgroup)
      attngpu::FenceProxyAsyncOp::create(b, loc);
    consumersBarrier();
  }
  Value stageOf(Value tileNumber) {
    return barriers.slotOf(tileNumber, layout.stages);
  }
  /// Every consumer thread meets here (the block's barrier without a
  /// producer).
  void consumersBarrier() {
    if (!producer) {
      gpu::BarrierOp::create(b, loc);
      return;
    }
    attngpu::NamedBarrierSyncOp::create(b, loc, i32(attnc::kConsumersBarrier),
                                        consumers);
  }

  // Warp specialization (`producer` tiles, with `tma`): the producer
  // warpgroup fills a ring of stages with the walked tiles, the block's
  // own tiles with the first: one thread by TMA, or, where the runtime
  // could not describe every input, all of its threads by cp.async (or
  // element copies).
  void makeTensorMaps();
  void initBarriers();
  /// The producer warpgroup fills the stages with `tiles` walked tiles
  /// (produceTiles), the consumers run consume().
  template <typename Copy, typename Load, typename Consume>
  void specialize(Value tiles, int64_t walkedBytes, int64_t ownBytes, Copy copy,
                  Load load, Consume consume);
  /// The walked tiles' stage ring: "full" (loads landed) of tile `t`.
  Value fullBarrier(Value t) {
    return barriers.at(layout.fullOffset, stageOf(t));
  }
  /// Fills the stages with `tiles` walked tiles, each once its stage is
  /// free: by `load(t, first, full)` after announcing their bytes
  /// (`ownBytes` more with the first), else by `copy(t, first)`.
  template <typename Copy, typename Load>
  void produceTiles(Value tiles, int64_t walkedBytes, int64_t ownBytes,
                    Copy copy, Load load);
  /// Frees tile `t`'s stage for the producer.
  void releaseTile(Value t) {
    barriers.release(layout.freeOffset, t, layout.stages);
  }
  void loadPanels(Value map, int64_t offset, Value stage,
                  const attnc::MmaTileLayout &tileLayout, Value batch,
                  Value head, Value row, Value full);
  void loadRowValues(Value map, int64_t offset, Value stage, Value batch,
                     Value head, Value row, Value full);
  /// The bytes of a query tile's boxes (q, dout, lse and delta) and of a
  /// key tile's (k and v): whole tiles, padding panels included.
  int64_t queryTileBytes() const {
    return layout.q.bytes() + layout.dout.bytes() + 2 * blockM * 4;
  }
  int64_t keyTileBytes() const { return layout.k.bytes() + layout.v.bytes(); }
  /// Registers per thread of the producer after `setmaxnreg`. The
  /// key/value kernel's consumers need 240 at head dim 128 (dK and dV in
  /// registers), which leaves the producer 24: its copies, the fallback
  /// where TMA cannot load, spill (ptxas: 284 bytes with three stages;
  /// nothing where it loads by TMA). The query kernel's consumers fit in 216,
  /// leaving the producer 72, at which its copies do not spill (at 64 they did,
  /// causal).
  int64_t producerRegisters() {
    return isa<attn::AttentionGradKVOp>(op.getOperation()) ? 24 : 72;
  }

  /// Element (j, r) of the thread's fragments: its (indices, in bounds,
  /// lse in log2 units, delta), as `at(j, r)` of the per-element functions
  /// gives it.
  struct Element {
    SmallVector<Value, 4> indices;
    Value inBounds, lse, delta;
  };
  /// Column j * 8 + r % 2 of the thread's fragments in a tile of `valid`
  /// columns from `first`: its index and whether it is below `valid`. Both
  /// from per-tile bases: the thread's column itself is loop-invariant, and
  /// LLVM would keep all 16 (i64) live across the tile loop.
  std::pair<Value, Value> columnOf(Value first, Value valid, int64_t j,
                                   int64_t r) {
    Value offset = index(j * 8 + r % 2);
    Value left = arith::SubIOp::create(b, loc, valid, columnBase);
    return {add(add(first, columnBase), offset),
            arith::CmpIOp::create(b, loc, P::slt, offset, left)};
  }
  /// A tile with fewer than block_m rows or block_n columns, or whose
  /// mask may block a pair (`mayBlock`), takes the guarded per-element
  /// path (`partial`).
  struct TileBounds {
    Value mayBlock, partial;
  };
  TileBounds tileBounds(Value rows, Value cols, Value mayBlock);
  /// P of every element of fragments `s` (raw dots), 4 per fragment,
  /// fragment-major.
  template <typename Fn>
  SmallVector<Value> probabilities(ArrayRef<SmallVector<Value>> s,
                                   const TileBounds &bounds, Fn at);
  /// dS (with respect to the raw dots) of every element from its P and dP.
  template <typename Fn>
  SmallVector<Value> scoreGradients(ArrayRef<SmallVector<Value>> s,
                                    ArrayRef<SmallVector<Value>> dp,
                                    ArrayRef<Value> p, const TileBounds &bounds,
                                    Fn at);
  /// ifElse(bounds.partial, compute(true), compute(false)) of `n` f32.
  template <typename Fn>
  SmallVector<Value> guardedElements(const TileBounds &bounds, int64_t n,
                                     Fn compute);
  /// Whether element `e` of a guarded tile is in bounds and, where the
  /// tile's mask may block pairs (`mayBlock`), allowed by the mask.
  Value allowedFlag(const Element &e, Value mayBlock);
  /// Stores the thread's part of the warp's fragment accumulator (its rows
  /// localRow[0] and localRow[1], those below `rows`) into
  /// out[batch, head, first + row, :], converted to out's type.
  void storeRows(ArrayRef<Value> acc, int64_t width, Value out, Value batch,
                 Value head, Value first, Value rows);

  /// compute(tileClass) where the tile of `rows` query rows from `q0` and
  /// `cols` keys from `k0` may hold allowed pairs (the classifier's verdict
  /// is uniform over the block, so barriers inside are safe), else skip()
  /// (by default `state` unchanged).
  template <typename Fn, typename Skip>
  SmallVector<Value> ifTileMayAllow(ValueRange state, Value batch, Value head,
                                    Value q0, Value rows, Value k0, Value cols,
                                    Fn compute, Skip skip) {
    attnc::TileClass tileClass =
        attnc::classifyTile(b, loc, op,
                            {batch, head, q0, lastOf(q0, rows), k0,
                             lastOf(k0, cols), diagonal, Value(), lane});
    return llvm::to_vector(ifElse(
        tileClass.mayAllow, ValueRange(state).getTypes(),
        [&] { return compute(tileClass); }, skip));
  }
  template <typename Fn>
  SmallVector<Value> ifTileMayAllow(ValueRange state, Value batch, Value head,
                                    Value q0, Value rows, Value k0, Value cols,
                                    Fn compute) {
    return ifTileMayAllow(state, batch, head, q0, rows, k0, cols, compute, [&] {
      return SmallVector<Value>(state.begin(), state.end());
    });
  }
  void stageQueryTile(Value batch, Value head, Value q0, Value stage);
  /// acc += A B with A from the thread's per-element values `a` and B the
  /// `tile` of `tileRows` rows and `width` columns. On wgmma the product is
  /// left in flight and its accumulator returned for wait(); on mma.sync
  /// `acc` is updated and nothing returned.
  SmallVector<Value> addProduct(MutableArrayRef<Value> acc, ArrayRef<Value> a,
                                Value tile, int64_t tileRows, int64_t width);

  SmallVector<Value> keyTileStep(ValueRange state, Value batch, Value head,
                                 Value q0, Value k0, Value cols, Value stage,
                                 Value dqAccum);
  using Fragments = SmallVector<SmallVector<Value>>;
  std::pair<Fragments, SmallVector<Value>>
  rowScores(Value own, Value ownDp, int64_t ownRows, Value walked,
            Value walkedDp, int64_t walkedRows,
            llvm::function_ref<void()> whileInFlight);
  /// The lse (in log2 units) and the delta of query row `i` of the staged
  /// query tile.
  Value lseAt(Value i) {
    return arith::MulFOp::create(b, loc,
                                 memref::LoadOp::create(b, loc, lseArray, i),
                                 f32Const(attnc::kLog2E));
  }
  Value deltaAt(Value i) {
    return memref::LoadOp::create(b, loc, deltaArray, i);
  }
  /// `dp` of rowScores, waited for on wgmma until at most `pending` groups
  /// committed after its own are outstanding.
  Fragments readyScores(ArrayRef<Value> dp, int64_t pending) {
    return fragmentsOf(isWarpgroup ? wgmma.wait(dp, {}, pending)
                                   : SmallVector<Value>(dp));
  }
  /// Flat values as fragments of 4.
  static Fragments fragmentsOf(ArrayRef<Value> values) {
    Fragments fragments;
    for (size_t j = 0; j < values.size(); j += 4)
      fragments.push_back(SmallVector<Value>(values.slice(j, 4)));
    return fragments;
  }
  void storeTransposedDs(ArrayRef<Value> dsFlat);
  SmallVector<Value> queryRowsOfDsK(Value &rowBase, Value columnFirst,
                                    int64_t width);
  /// The dq columns of a wgmma warpgroup: an equal share of the head dim.
  int64_t dqColumns() const { return headDim / (blockN / 64); }
  void addQueryRows(Value batch, Value head, Value q0, Value rows,
                    Value dqAccum);
  /// The accumulator's place for `column` of query row `row`.
  Value dqColumn(Value row, Value column) {
    return rowSwizzle ? attnc::swizzledColumn(b, loc, row, column, *rowSwizzle)
                      : column;
  }
  void stageDqRows(ArrayRef<Value> dq, Value rowBase, Value columnFirst,
                   Value q0);
  void reduceDqRows(ArrayRef<Value> dq, Value rowBase, Value columnFirst,
                    ArrayRef<Value> tile, Value dqAccum);
  void addStagedDq(Value batch, Value head, Value q0, Value dqAccum);
  Value flag(bool value) {
    return arith::ConstantIntOp::create(b, loc, value, 1);
  }
  Value isFirstThread() {
    return arith::CmpIOp::create(b, loc, P::eq, threadId, index(0));
  }
  void stageKeyTile(Value batch, Value kvHead, Value k0, Value stage);
  template <typename TileAt>
  SmallVector<Value> walkQueryTiles(Value tiles, TileAt tileAt, Value batch,
                                    Value k0, Value cols, Value dqAccum);
  void loadQueryTile(Value stage, Value batch, Value head, Value q0,
                     Value full);
  SmallVector<Value> walkKeyTiles(attnc::KeyRange keys, Value batch, Value head,
                                  Value kvHead, Value q0, Value rows);
  SmallVector<Value> queryTileStep(ValueRange state, Value batch, Value head,
                                   Value q0, Value rows, Value k0, Value t);
  /// Frees the stage of the tile before tile `t` (if any) for the producer.
  void releasePrevious(Value t) {
    if (producer)
      ifThen(less(index(0), t),
             [&] { releaseTile(arith::SubIOp::create(b, loc, t, index(1))); });
  }

  attn::AttentionScoringOpInterface op;
  Region &scoreGrad;
  const attnc::KernelBuffers &x;
  const attnc::MmaGradLayout &layout;
  Value shared, threadId;
  Value lane; // the thread's lane in its warp (TileBox::lane)
  Type element;
  attnc::SyncMma sync;
  attnc::WarpgroupMma wgmma;
  attnc::TileStager stager;
  attnc::StageBarriers barriers;
  attnc::LaneGeometry lanes;
  bool isWarpgroup;
  bool producer;     // `producer` tiles: a warpgroup copies, see above
  int64_t consumers; // the threads that compute
  // With `tma` tiles: the inputs' tensor maps (boxes of a tile, 64 columns
  // wide; lse and delta rows of a query tile), and whether the runtime
  // could make every one (else the producer copies).
  struct TensorMaps {
    Value q, k, v, dout, lse, delta, valid;
  };
  std::optional<TensorMaps> maps;
  // The wgmma key/value kernel adds dq by bulk reductions of staged rows.
  bool bulkDq = false;
  std::optional<int64_t> rowSwizzle; // of the dq accumulator
  Value warpgroup; // lanes.warp / 4
  std::optional<attnc::TensorCoreTurn> turn;
  int64_t blockM, blockN, headDim, headDimV, threads;
  // The thread's two fragment rows within the tile, its first column.
  Value localRow[2], columnBase;
  Value diagonal; // the mask's diagonalOffset
  Value qTile, doutTile, kTile, vTile, dsTile, lseArray, deltaArray;
  attnc::GlobalSource qSource, doutSource, kSource, vSource;
  attnc::GlobalRowValues lseSource, deltaSource;
};

Value MmaGradKernel::f32View(Value byteOffset, ArrayRef<int64_t> shape) {
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto bytesType = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                   nullptr, workgroup);
  Value bytes = gpu::DynamicSharedMemoryOp::create(b, loc, bytesType);
  auto type = MemRefType::get(shape, b.getF32Type(), nullptr, workgroup);
  return memref::ViewOp::create(b, loc, type, bytes, byteOffset, ValueRange{});
}

/// Computed per element where it is used, not as a branch's results: a
/// branch yielding every element's flag keeps them all live at once, in
/// general registers (there are 7 predicates), which made the D128 causal
/// kernel spill.
Value MmaGradKernel::allowedFlag(const Element &e, Value mayBlock) {
  if (!attnc::hasMask(op))
    return e.inBounds;
  Value mask = attnc::emitElementMask(b, loc, op, diagonal, e.indices[0],
                                      e.indices[1], e.indices[2], e.indices[3]);
  return both(e.inBounds,
              arith::SelectOp::create(b, loc, mayBlock, mask, flag(true)));
}

MmaGradKernel::TileBounds MmaGradKernel::tileBounds(Value rows, Value cols,
                                                    Value mayBlock) {
  // Interior tiles of an unmasked region skip every bound and mask check.
  Value partial = arith::OrIOp::create(b, loc, less(cols, index(blockN)),
                                       less(rows, index(blockM)));
  if (attnc::hasMask(op))
    partial = arith::OrIOp::create(b, loc, partial, mayBlock);
  return {mayBlock, partial};
}

template <typename Fn>
SmallVector<Value> MmaGradKernel::guardedElements(const TileBounds &bounds,
                                                  int64_t n, Fn compute) {
  SmallVector<Type> types(n, b.getF32Type());
  return llvm::to_vector(ifElse(
      bounds.partial, types, [&] { return compute(true); },
      [&] { return compute(false); }));
}

template <typename Fn>
SmallVector<Value> MmaGradKernel::probabilities(ArrayRef<SmallVector<Value>> s,
                                                const TileBounds &bounds,
                                                Fn at) {
  int64_t n = static_cast<int64_t>(s.size()) * 4;
  return guardedElements(bounds, n, [&](bool guarded) {
    SmallVector<Element> elements;
    for (int64_t i = 0; i < n; ++i)
      elements.push_back(at(i / 4, i % 4));
    auto exp2 = [&](Value x) {
      return attngpu::Exp2Op::create(b, loc, b.getF32Type(), x).getResult();
    };
    SmallVector<Value> p;
    for (auto [i, e] : llvm::enumerate(elements))
      p.push_back(attnc::pairProbability(
          b, loc, op, s[i / 4][i % 4], e.lse, e.indices,
          guarded ? allowedFlag(e, bounds.mayBlock) : Value(), guarded, exp2));
    return p;
  });
}

template <typename Fn>
SmallVector<Value> MmaGradKernel::scoreGradients(
    ArrayRef<SmallVector<Value>> s, ArrayRef<SmallVector<Value>> dp,
    ArrayRef<Value> p, const TileBounds &bounds, Fn at) {
  return guardedElements(bounds, p.size(), [&](bool guarded) {
    SmallVector<Value> ds;
    for (auto [i, pi] : llvm::enumerate(p)) {
      Element e = at(i / 4, i % 4);
      ds.push_back(attnc::pairScoreGradient(
          b, loc, op, scoreGrad, s[i / 4][i % 4], pi, dp[i / 4][i % 4], e.delta,
          e.indices, guarded));
    }
    return ds;
  });
}

void MmaGradKernel::storeRows(ArrayRef<Value> acc, int64_t width, Value out,
                              Value batch, Value head, Value first,
                              Value rows) {
  Type outType = cast<MemRefType>(out.getType()).getElementType();
  for (int64_t h = 0; h < 2; ++h)
    ifThen(less(localRow[h], rows), [&] {
      for (int64_t n = 0; n < width / 8; ++n)
        for (int64_t c = 0; c < 2; ++c) {
          Value value = acc[n * 4 + 2 * h + c];
          if (outType != value.getType())
            value = arith::TruncFOp::create(b, loc, outType, value);
          memref::StoreOp::create(
              b, loc, value, out,
              ValueRange{batch, head, add(first, localRow[h]),
                         add(columnBase, index(n * 8 + c))});
        }
    });
}

//===----------------------------------------------------------------------===//
// Warp specialization
//===----------------------------------------------------------------------===//

void MmaGradKernel::makeTensorMaps() {
  if (!op.getTiles()->getTma().value_or(false))
    return;
  auto tileMap = [&](int64_t i, int64_t rows) {
    return attngpu::TensorMapOp::create(
        b, loc, operand(i), ArrayRef<int64_t>{64, rows, 1, 1}, int64_t{128});
  };
  auto rowMap = [&](int64_t i) {
    return attngpu::TensorMapOp::create(
        b, loc, operand(i), ArrayRef<int64_t>{blockM, 1, 1}, int64_t{0});
  };
  SmallVector<attngpu::TensorMapOp> all = {
      tileMap(0, blockM), tileMap(1, blockN), tileMap(2, blockN),
      tileMap(5, blockM), rowMap(3),          rowMap(4)};
  Value valid = all.front().getValid();
  for (attngpu::TensorMapOp map : ArrayRef(all).drop_front())
    valid = both(valid, map.getValid());
  maps = TensorMaps{all[0].getMap(),
                    all[1].getMap(),
                    all[2].getMap(),
                    all[3].getMap(),
                    all[4].getMap(),
                    all[5].getMap(),
                    valid};
}

/// Each walked tile's "full" expects every copying thread (by TMA, one
/// thread and the bytes it announces), its "free" every consumer.
void MmaGradKernel::initBarriers() {
  Value copiers = arith::SelectOp::create(b, loc, maps->valid, i32(1),
                                          i32(attnc::stagingThreads(op)));
  ifThen(isFirstThread(), [&] {
    for (int64_t i = 0; i < layout.stages; ++i) {
      attngpu::MBarrierInitOp::create(
          b, loc, barriers.at(layout.fullOffset, index(i)), copiers);
      attngpu::MBarrierInitOp::create(
          b, loc, barriers.at(layout.freeOffset, index(i)), i32(consumers));
    }
  });
  attngpu::MBarrierFenceInitOp::create(b, loc);
  gpu::BarrierOp::create(b, loc);
}

/// The producer warpgroup hands most of its registers to the consumers.
template <typename Copy, typename Load, typename Consume>
void MmaGradKernel::specialize(Value tiles, int64_t walkedBytes,
                               int64_t ownBytes, Copy copy, Load load,
                               Consume consume) {
  initBarriers();
  ifThenElse(
      arith::CmpIOp::create(b, loc, P::uge, threadId, index(consumers)),
      [&] {
        NVVM::SetMaxRegisterOp::create(b, loc, producerRegisters(),
                                       NVVM::SetMaxRegisterAction::decrease);
        produceTiles(tiles, walkedBytes, ownBytes, copy, load);
      },
      [&] {
        NVVM::SetMaxRegisterOp::create(
            b, loc,
            attnc::consumerRegisters(threads, threads - consumers,
                                     producerRegisters()),
            NVVM::SetMaxRegisterAction::increase);
        takeTurns();
        consume();
      });
}

template <typename Copy, typename Load>
void MmaGradKernel::produceTiles(Value tiles, int64_t walkedBytes,
                                 int64_t ownBytes, Copy copy, Load load) {
  auto eachTile = [&](auto fill) {
    loop(index(0), tiles, index(1), [&](Value t) {
      barriers.waitForFree(layout.freeOffset, t, layout.stages);
      fill(t, arith::CmpIOp::create(b, loc, P::eq, t, index(0)));
    });
  };
  ifThenElse(
      maps->valid,
      [&] {
        Value loads =
            arith::CmpIOp::create(b, loc, P::eq, threadId, index(consumers));
        ifThen(loads, [&] {
          eachTile([&](Value t, Value first) {
            Value full = fullBarrier(t);
            attngpu::MBarrierArriveExpectTxOp::create(
                b, loc, full,
                arith::SelectOp::create(b, loc, first,
                                        i32(walkedBytes + ownBytes),
                                        i32(walkedBytes)));
            load(t, first, full);
          });
        });
      },
      [&] {
        stager.copyElementsOnly(true);
        eachTile([&](Value t, Value first) {
          copy(t, first);
          NVVM::CpAsyncCommitGroupOp::create(b, loc);
          NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
          barriers.arrive(fullBarrier(t));
        });
        stager.copyElementsOnly(false);
      });
}

void MmaGradKernel::loadPanels(Value map, int64_t offset, Value stage,
                               const attnc::MmaTileLayout &tileLayout,
                               Value batch, Value head, Value row, Value full) {
  Value stageBytes = stage ? mul(stage, index(layout.stageBytes)) : index(0);
  attnc::loadPanels(b, loc, stager, shared, element, map, offset, stageBytes,
                    tileLayout, row, head, batch, full);
}

/// One box of lse or delta: the f32 values of a query tile's rows.
void MmaGradKernel::loadRowValues(Value map, int64_t offset, Value stage,
                                  Value batch, Value head, Value row,
                                  Value full) {
  attngpu::TmaLoadOp::create(
      b, loc, map, ValueRange{toI32(row), toI32(head), toI32(batch)}, full,
      f32View(stageOffset(offset, stage), {1, blockM}));
}

//===----------------------------------------------------------------------===//
// attention_grad_kv
//===----------------------------------------------------------------------===//

/// The scores and their gradients' dP of the staged tiles, as fragments
/// of 8 columns (4 f32 each) of the thread's rows: `own` rows (K and V in
/// the key/value kernel, Sᵀ = K Qᵀ and dPᵀ = V doutᵀ; Q and dout in the
/// query kernel) against `walked` rows (the other two). The scores are
/// ready; dP, flat, is still in flight on wgmma (readyScores waits).
/// `whileInFlight` emits what runs while both products do (loads whose
/// latency would otherwise follow the wait).
std::pair<MmaGradKernel::Fragments, SmallVector<Value>>
MmaGradKernel::rowScores(Value own, Value ownDp, int64_t ownRows, Value walked,
                         Value walkedDp, int64_t walkedRows,
                         llvm::function_ref<void()> whileInFlight) {
  if (!isWarpgroup) {
    whileInFlight();
    SmallVector<Value> dp;
    for (const SmallVector<Value> &fragment :
         sync.scores(ownDp, walkedDp, walkedRows, headDimV, lanes))
      llvm::append_range(dp, fragment);
    return {sync.scores(own, walked, walkedRows, headDim, lanes), dp};
  }
  SmallVector<attnc::WgmmaProduct, 2> products = {
      wgmma.scores(own, ownRows, walked, walkedRows, headDim, warpgroup),
      wgmma.scores(ownDp, ownRows, walkedDp, walkedRows, headDimV, warpgroup)};
  SmallVector<SmallVector<Value>> values =
      wgmma.issue(products, /*inFlight=*/2, turn ? &*turn : nullptr);
  whileInFlight();
  return {fragmentsOf(wgmma.wait(values[0], {}, /*pending=*/1)), values[1]};
}

/// Stores the thread's dSᵀ elements into the shared tile, a lane's two
/// adjacent queries of a fragment row as one pair, and makes them visible
/// to the block (and to wgmma). With bulk dq, the barrier also tells every
/// thread that the previous tile's bulk reduction has read the staged dq
/// rows, which the first thread waits for here.
void MmaGradKernel::storeTransposedDs(ArrayRef<Value> dsFlat) {
  auto pairType = VectorType::get({2}, element);
  for (size_t i = 0; i < dsFlat.size(); i += 2) {
    int64_t j = i / 4, r = i % 4;
    Value pair = vector::FromElementsOp::create(
        b, loc, pairType,
        ValueRange{arith::TruncFOp::create(b, loc, element, dsFlat[i]),
                   arith::TruncFOp::create(b, loc, element, dsFlat[i + 1])});
    vector::StoreOp::create(
        b, loc, pair, dsTile,
        ValueRange{localRow[r / 2], add(columnBase, index(j * 8))});
  }
  if (isWarpgroup)
    attngpu::FenceProxyAsyncOp::create(b, loc);
  if (bulkDq)
    ifThen(isFirstThread(), [&] {
      NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, 0, b.getUnitAttr());
    });
  consumersBarrier();
}

/// dS K for query rows from `rowBase` on (set here) and `width` columns
/// from `columnFirst`, as accumulator fragments, over all the block's keys:
/// on mma.sync the warp's 16 rows, on wgmma every row (waited for).
SmallVector<Value> MmaGradKernel::queryRowsOfDsK(Value &rowBase,
                                                 Value columnFirst,
                                                 int64_t width) {
  if (!isWarpgroup) {
    SmallVector<Value> dq(width / 8 * 4, f32Const(0.0));
    sync.accumulate(sync.transposedA(dsTile, lanes.warpRow, blockN, lanes),
                    kTile, width, lanes, dq);
    rowBase = lanes.warpRow;
    return dq;
  }
  rowBase =
      mul(arith::RemUIOp::create(b, loc, lanes.warp, index(4)), index(16));
  SmallVector<attnc::WgmmaProduct, 1> product = {wgmma.transposedA(
      dsTile, kTile, blockN, index(0), blockN, columnFirst, width)};
  return wgmma.issue(product, /*inFlight=*/0)[0];
}

/// dq += dS K of the tile, added atomically (other key blocks add to the
/// same rows): on wgmma the warpgroup's share of the columns, staged for
/// one bulk reduction (addStagedDq); on mma.sync every column, by a
/// reduction per pair.
void MmaGradKernel::addQueryRows(Value batch, Value head, Value q0, Value rows,
                                 Value dqAccum) {
  int64_t width = isWarpgroup ? dqColumns() : headDim;
  Value rowBase,
      columnFirst = isWarpgroup ? mul(warpgroup, index(width)) : index(0);
  SmallVector<Value> dq = queryRowsOfDsK(rowBase, columnFirst, width);
  if (!bulkDq)
    return reduceDqRows(dq, rowBase, columnFirst, {batch, head, q0, rows},
                        dqAccum);
  stageDqRows(dq, rowBase, columnFirst, q0);
  attngpu::FenceProxyAsyncOp::create(b, loc);
}

/// Adds the thread's dq fragments (rows from `rowBase`, columns from
/// `columnFirst`) of the query tile `tile` (batch, head, first row, rows)
/// to the accumulator. A lane's two columns of a fragment are adjacent
/// (also when swizzled): one v2 reduction.
void MmaGradKernel::reduceDqRows(ArrayRef<Value> dq, Value rowBase,
                                 Value columnFirst, ArrayRef<Value> tile,
                                 Value dqAccum) {
  Value batch = tile[0], head = tile[1], q0 = tile[2], rows = tile[3];
  auto pairType = VectorType::get({2}, b.getF32Type());
  for (int64_t h = 0; h < 2; ++h) {
    Value row = add(rowBase, add(lanes.group, index(8 * h)));
    ifThen(less(row, rows), [&] {
      for (size_t n = 0; n < dq.size() / 4; ++n)
        attngpu::RedAddOp::create(
            b, loc,
            vector::FromElementsOp::create(
                b, loc, pairType,
                ValueRange{dq[n * 4 + 2 * h], dq[n * 4 + 2 * h + 1]}),
            dqAccum,
            ValueRange{
                batch, head, add(q0, row),
                dqColumn(add(q0, row),
                         add(columnFirst, add(columnBase, index(n * 8))))});
    });
  }
}

/// Writes the warpgroup's dq fragments into the staged rows (tile row r at
/// r x head dim), each row in the accumulator's order: swizzled, a lane's
/// columns c, c + 1, c + 8 and c + 9 are one 16-byte store. Rows past the
/// tile's end are staged too (zero: their lse is -inf) and never added.
void MmaGradKernel::stageDqRows(ArrayRef<Value> dq, Value rowBase,
                                Value columnFirst, Value q0) {
  Value staged = stagedDq();
  int64_t perStore = rowSwizzle ? 2 : 1; // fragments of 8 columns
  auto storeType = VectorType::get({2 * perStore}, b.getF32Type());
  for (int64_t h = 0; h < 2; ++h) {
    Value row = add(rowBase, add(lanes.group, index(8 * h)));
    Value rowStart = mul(row, index(headDim));
    for (size_t n = 0; n < dq.size() / 4; n += perStore) {
      SmallVector<Value> values;
      for (size_t f = n; f < n + perStore; ++f)
        llvm::append_range(values, ArrayRef<Value>(dq).slice(f * 4 + 2 * h, 2));
      Value column = add(columnFirst, add(columnBase, index(n * 8)));
      vector::StoreOp::create(
          b, loc, vector::FromElementsOp::create(b, loc, storeType, values),
          staged, ValueRange{add(rowStart, dqColumn(add(q0, row), column))},
          /*nontemporal=*/false, llvm::MaybeAlign(8 * perStore));
    }
  }
}

/// Adds the staged rows of query tile `q0` of `head` to the accumulator by
/// one bulk reduction (of one thread, once every thread's rows are in).
void MmaGradKernel::addStagedDq(Value batch, Value head, Value q0,
                                Value dqAccum) {
  Value bytes = arith::IndexCastOp::create(
      b, loc, b.getI32Type(), mul(queryRowsFrom(q0), index(headDim * 4)));
  attngpu::BulkReduceAddOp::create(b, loc, stagedDq(), dqAccum,
                                   ValueRange{batch, head, q0, index(0)},
                                   bytes);
  NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
}

/// Copies the q and dout rows of query tile `q0` of `head`, and their lse
/// and delta, into stage `stage`. Rows past the end are zero (the guarded
/// per-element path gives them nothing).
void MmaGradKernel::stageQueryTile(Value batch, Value head, Value q0,
                                   Value stage) {
  Value rows =
      queryRowsFrom(q0);
  stager.stage(qSource, tile(layout.qOffset, layout.q, stage), batch, head, q0,
               rows);
  stager.stage(doutSource, tile(layout.doutOffset, layout.dout, stage), batch,
               head, q0, rows);
  stager.stageRowValues(lseSource, f32Array(layout.lseOffset, blockM, stage),
                        batch, head, q0, rows);
  stager.stageRowValues(deltaSource,
                        f32Array(layout.deltaOffset, blockM, stage), batch,
                        head, q0, rows);
}

/// One query tile of head `head`, staged in `stage`, against the block's
/// keys; `state` holds dK then dV.
SmallVector<Value> MmaGradKernel::keyTileStep(ValueRange state, Value batch,
                                              Value head, Value q0, Value k0,
                                              Value cols, Value stage,
                                              Value dqAccum) {
  Value rows =
      queryRowsFrom(q0);
  return ifTileMayAllow(
      state, batch, head, q0, rows, k0, cols, [&](attnc::TileClass tileClass) {
        qTile = tile(layout.qOffset, layout.q, stage);
        doutTile = tile(layout.doutOffset, layout.dout, stage);
        lseArray = f32Array(layout.lseOffset, blockM, stage);
        deltaArray = f32Array(layout.deltaOffset, blockM, stage);
        // FlashAttention-3's order: P while dPᵀ runs, then dV += Pᵀ dout
        // behind dPᵀ while dS is computed, then dK += dSᵀ Q (and dq).
        // The lse of the thread's 16 query columns is loaded while Sᵀ
        // and dPᵀ run, their delta while dPᵀ may still (D128 has no
        // registers for both across P).
        SmallVector<Value> columnLse, columnDelta;
        int64_t columns = blockM / 8 * 2;
        auto column = [&](int64_t c) {
          return add(columnBase, index(c / 2 * 8 + c % 2));
        };
        auto [sT, dpTInFlight] =
            rowScores(kTile, vTile, blockN, qTile, doutTile, blockM, [&] {
              for (int64_t c = 0; c < columns; ++c)
                columnLse.push_back(lseAt(column(c)));
            });
        TileBounds bounds = tileBounds(rows, cols, tileClass.mayBlock);
        auto at = [&](int64_t j, int64_t r) {
          Value key = localRow[r / 2];
          auto [query, queryInBounds] = columnOf(q0, rows, j, r);
          int64_t c = j * 2 + r % 2;
          return Element{{batch, head, query, add(k0, key)},
                         both(less(key, cols), queryInBounds),
                         columnLse[c],
                         columnDelta.empty() ? Value() : columnDelta[c]};
        };
        SmallVector<Value> p = probabilities(sT, bounds, at);
        SmallVector<Value> next(state.begin(), state.end());
        int64_t dkSize = headDim / 8 * 4;
        MutableArrayRef<Value> dk(next.data(), dkSize),
            dv(next.data() + dkSize, headDimV / 8 * 4);
        SmallVector<Value> dvInFlight =
            addProduct(dv, p, doutTile, blockM, headDimV);
        for (int64_t c = 0; c < columns; ++c)
          columnDelta.push_back(deltaAt(column(c)));
        Fragments dpT = readyScores(dpTInFlight, /*pending=*/1);
        SmallVector<Value> ds = scoreGradients(sT, dpT, p, bounds, at);
        SmallVector<Value> dkInFlight =
            addProduct(dk, ds, qTile, blockM, headDim);
        if (dqAccum)
          storeTransposedDs(ds);
        // One wait per product: each passes exactly one product's result.
        // (Left in flight into the next tile instead, as dQ is in the query
        // kernel, ptxas serializes the wgmma at D128: slower.) Waited for
        // before dq is issued, which runs after them anyway, so that dS
        // and P in registers die first (bench/NOTES.md: faster at D64).
        if (isWarpgroup) {
          llvm::copy(wgmma.wait(dkInFlight, {}), dk.begin());
          llvm::copy(wgmma.wait(dvInFlight, {}), dv.begin());
        }
        if (dqAccum)
          addQueryRows(batch, head, q0, rows, dqAccum);
        if (bulkDq)
          next.back() = flag(true);
        return next;
      });
}

SmallVector<Value> MmaGradKernel::addProduct(MutableArrayRef<Value> acc,
                                             ArrayRef<Value> a, Value tile,
                                             int64_t tileRows, int64_t width) {
  if (!isWarpgroup) {
    sync.accumulate(sync.probabilityFragments(a), tile, width, lanes, acc);
    return {};
  }
  SmallVector<attnc::WgmmaProduct, 1> product = {
      wgmma.output(acc, wgmma.probabilityFragments(a), tile, tileRows, width)};
  return wgmma.issue(product, /*inFlight=*/1)[0];
}

void MmaGradKernel::keyBlock(ValueRange ids, Value dk, Value dv,
                             Value dqAccum) {
  makeTensorMaps();
  setUp();
  bulkDq = dqAccum && isWarpgroup;
  Value kvHead = ids[1], batch = ids[2];
  Value k0 = mul(ids[0], index(blockN));
  Value cols =
      keysFrom(k0);
  kTile = tile(layout.kOffset, layout.k);
  vTile = tile(layout.vOffset, layout.v);
  dsTile = tile(layout.dsTOffset, layout.dsT);

  // One walk over the query tiles of every head of the group (they all add
  // into this block's dK and dV): tile t is tile t % perHead of member
  // t / perHead.
  int64_t group = op.getGroupSize();
  attnc::KeyRange queries = attnc::queryLoopBounds(
      b, loc, op, k0, lastOf(k0, cols),
      memref::DimOp::create(b, loc, operand(0), 2), diagonal, blockM);
  Value span = arith::SubIOp::create(
      b, loc, arith::MaxUIOp::create(b, loc, queries.end, queries.begin),
      queries.begin);
  Value perHead = arith::CeilDivUIOp::create(b, loc, span, index(blockM));
  Value tiles = mul(perHead, index(group));
  auto tileAt = [&](Value t) {
    Value member = arith::DivUIOp::create(b, loc, t, perHead);
    Value within = arith::RemUIOp::create(b, loc, t, perHead);
    return std::pair{add(mul(kvHead, index(group)), member),
                     add(queries.begin, mul(within, index(blockM)))};
  };
  auto stageKeys = [&] {
    stager.stage(kSource, kTile, batch, kvHead, k0, cols);
    stager.stage(vSource, vTile, batch, kvHead, k0, cols);
  };
  auto consume = [&] {
    SmallVector<Value> final =
        walkQueryTiles(tiles, tileAt, batch, k0, cols, dqAccum);
    int64_t dkSize = headDim / 8 * 4;
    if (dk)
      storeRows(ArrayRef<Value>(final).take_front(dkSize), headDim, dk, batch,
                kvHead, k0, cols);
    if (dv)
      storeRows(ArrayRef<Value>(final).slice(dkSize, headDimV / 8 * 4),
                headDimV, dv, batch, kvHead, k0, cols);
  };
  if (!producer) {
    stageKeys();
    ifThen(less(index(0), tiles), [&] {
      auto [head, q0] = tileAt(index(0));
      stageQueryTile(batch, head, q0, index(0));
    });
    NVVM::CpAsyncCommitGroupOp::create(b, loc); // with k and v
    takeTurns();
    return consume();
  }
  specialize(
      tiles, queryTileBytes(), keyTileBytes(),
      [&](Value t, Value first) {
        ifThen(first, stageKeys);
        auto [head, q0] = tileAt(t);
        stageQueryTile(batch, head, q0, stageOf(t));
      },
      [&](Value t, Value first, Value full) {
        ifThen(first, [&] {
          loadPanels(maps->k, layout.kOffset, Value(), layout.k, batch, kvHead,
                     k0, full);
          loadPanels(maps->v, layout.vOffset, Value(), layout.v, batch, kvHead,
                     k0, full);
        });
        auto [head, q0] = tileAt(t);
        loadQueryTile(stageOf(t), batch, head, q0, full);
      },
      consume);
}

/// The consumers' walk over the query tiles: dK then dV (then, with bulk
/// dq, whether the last tile staged dq rows) after the last.
template <typename TileAt>
SmallVector<Value> MmaGradKernel::walkQueryTiles(Value tiles, TileAt tileAt,
                                                 Value batch, Value k0,
                                                 Value cols, Value dqAccum) {
  SmallVector<Value> init((headDim + headDimV) / 8 * 4, f32Const(0.0));
  // With bulk dq, whether the previous tile staged dq rows rides along to
  // the next tile's barrier, after which they are added (a flag, not the
  // tile: D128 has no registers to spare).
  auto addStagedOf = [&](Value staged, Value t) {
    ifThen(both(isFirstThread(), staged), [&] {
      auto [head, q0] = tileAt(arith::SubIOp::create(b, loc, t, index(1)));
      addStagedDq(batch, head, q0, dqAccum);
    });
  };
  if (bulkDq)
    init.push_back(flag(false));
  SmallVector<Value> final =
      carry(index(0), tiles, index(1), init, [&](Value t, ValueRange state) {
        if (producer) {
          barriers.waitForFull(layout.fullOffset, t, layout.stages);
          if (bulkDq)
            consumersBarrier();
        } else {
          waitForCopies();
        }
        SmallVector<Value> current(state);
        if (bulkDq) {
          addStagedOf(state.back(), t);
          current.back() = flag(false);
        }
        Value next = add(t, index(1));
        if (!producer)
          ifThen(less(next, tiles), [&] {
            auto [head, q0] = tileAt(next);
            stageQueryTile(batch, head, q0, stageOf(next));
          });
        auto [head, q0] = tileAt(t);
        SmallVector<Value> result = keyTileStep(current, batch, head, q0, k0,
                                                cols, stageOf(t), dqAccum);
        if (producer) // its products and loads are done with the stage
          releaseTile(t);
        return result;
      });
  // A block without query tiles never waited for its key copies.
  if (!producer)
    NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
  if (bulkDq) {
    consumersBarrier();
    addStagedOf(final.back(), tiles);
    // Shared memory must outlive the engine's reads, and the sums land
    // before the kernel ends.
    ifThen(isFirstThread(), [&] {
      NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, 0, UnitAttr());
    });
  }
  return final;
}

/// TMA: the q and dout rows of query tile `q0` of `head`, and their lse and
/// delta, into stage `stage` (rows past the end land as zeros).
void MmaGradKernel::loadQueryTile(Value stage, Value batch, Value head,
                                  Value q0, Value full) {
  loadPanels(maps->q, layout.qOffset, stage, layout.q, batch, head, q0, full);
  loadPanels(maps->dout, layout.doutOffset, stage, layout.dout, batch, head, q0,
             full);
  loadRowValues(maps->lse, layout.lseOffset, stage, batch, head, q0, full);
  loadRowValues(maps->delta, layout.deltaOffset, stage, batch, head, q0, full);
}

//===----------------------------------------------------------------------===//
// attention_grad_q
//===----------------------------------------------------------------------===//

/// Copies the k and v rows of the key tile at `k0` into stage `stage`.
void MmaGradKernel::stageKeyTile(Value batch, Value kvHead, Value k0,
                                 Value stage) {
  Value cols =
      keysFrom(k0);
  stager.stage(kSource, tile(layout.kOffset, layout.k, stage), batch, kvHead,
               k0, cols);
  stager.stage(vSource, tile(layout.vOffset, layout.v, stage), batch, kvHead,
               k0, cols);
}

/// One key tile, the `t`th, against the block's query rows; `state` holds
/// dQ. With a producer, the dQ product stays in flight into the next tile,
/// whose first wait (or, where it is skipped, its wait for dQ) frees this
/// tile's stage: "free" completes once every consumer has. Without one,
/// the next tile's copies go into the stage behind a block barrier that
/// does not order the other warpgroup's products: dQ is waited for here.
SmallVector<Value> MmaGradKernel::queryTileStep(ValueRange state, Value batch,
                                                Value head, Value q0,
                                                Value rows, Value k0, Value t) {
  Value cols =
      keysFrom(k0);
  Value stage = stageOf(t);
  return ifTileMayAllow(
      state, batch, head, q0, rows, k0, cols,
      [&](attnc::TileClass tileClass) {
        kTile = tile(layout.kOffset, layout.k, stage);
        vTile = tile(layout.vOffset, layout.v, stage);
        Value rowLse[2], rowDelta[2];
        // The first wait (for S) also covers the previous tile's dQ.
        auto [s, dpInFlight] =
            rowScores(qTile, doutTile, blockM, kTile, vTile, blockN, [&] {
              for (int64_t h = 0; h < 2; ++h) {
                rowLse[h] = lseAt(localRow[h]);
                rowDelta[h] = deltaAt(localRow[h]);
              }
            });
        releasePrevious(t);
        TileBounds bounds = tileBounds(rows, cols, tileClass.mayBlock);
        auto at = [&](int64_t j, int64_t r) {
          Value row = localRow[r / 2];
          auto [key, keyInBounds] = columnOf(k0, cols, j, r);
          return Element{{batch, head, add(q0, row), key},
                         both(keyInBounds, less(row, rows)),
                         rowLse[r / 2],
                         rowDelta[r / 2]};
        };
        // P while dP runs on wgmma.
        SmallVector<Value> p = probabilities(s, bounds, at);
        Fragments dp = readyScores(dpInFlight, /*pending=*/0);
        SmallVector<Value> ds = scoreGradients(s, dp, p, bounds, at);
        SmallVector<Value> next(state.begin(), state.end());
        SmallVector<Value> dqInFlight =
            addProduct(next, ds, kTile, blockN, headDim);
        if (!isWarpgroup)
          return next;
        return producer ? dqInFlight : wgmma.wait(dqInFlight, {});
      },
      [&] {
        if (!producer)
          return SmallVector<Value>(state.begin(), state.end());
        SmallVector<Value> dq = wgmma.wait(state, {});
        releasePrevious(t);
        return dq;
      });
}

/// The consumers' walk over the key tiles `keys`: dQ after the last.
SmallVector<Value> MmaGradKernel::walkKeyTiles(attnc::KeyRange keys,
                                               Value batch, Value head,
                                               Value kvHead, Value q0,
                                               Value rows) {
  SmallVector<Value> init(headDim / 8 * 4, f32Const(0.0));
  SmallVector<Value> final =
      carry(keys.begin, keys.end, index(blockN), init,
            [&](Value k0, ValueRange state) {
              Value t = arith::DivUIOp::create(
                  b, loc, arith::SubIOp::create(b, loc, k0, keys.begin),
                  index(blockN));
              if (producer)
                barriers.waitForFull(layout.fullOffset, t, layout.stages);
              else
                waitForCopies();
              Value next = add(k0, index(blockN));
              if (!producer)
                ifThen(less(next, keys.end), [&] {
                  stageKeyTile(batch, kvHead, next, stageOf(add(t, index(1))));
                });
              return queryTileStep(state, batch, head, q0, rows, k0, t);
            });
  if (!producer)
    NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
  // With a producer the last tile's dQ product is still in flight.
  return producer ? wgmma.wait(final, {}) : final;
}

void MmaGradKernel::queryBlock(ValueRange ids, Value dq) {
  makeTensorMaps();
  setUp();
  Value head = ids[1], batch = ids[2];
  Value q0 = mul(ids[0], index(blockM));
  Value rows =
      queryRowsFrom(q0);
  Value kvHead = arith::DivUIOp::create(b, loc, head, index(op.getGroupSize()));
  qTile = tile(layout.qOffset, layout.q);
  doutTile = tile(layout.doutOffset, layout.dout);
  lseArray = f32Array(layout.lseOffset, blockM);
  deltaArray = f32Array(layout.deltaOffset, blockM);
  Value seqK = memref::DimOp::create(b, loc, operand(1), 2);
  attnc::KeyRange keys = attnc::keyLoopBounds(b, loc, op, q0, lastOf(q0, rows),
                                              seqK, diagonal, blockN);
  auto consume = [&] {
    storeRows(walkKeyTiles(keys, batch, head, kvHead, q0, rows), headDim, dq,
              batch, head, q0, rows);
  };
  if (!producer) {
    stageQueryTile(batch, head, q0, Value());
    ifThen(less(keys.begin, keys.end),
           [&] { stageKeyTile(batch, kvHead, keys.begin, index(0)); });
    NVVM::CpAsyncCommitGroupOp::create(b, loc); // with q and dout
    takeTurns();
    return consume();
  }
  Value tiles = arith::CeilDivUIOp::create(
      b, loc,
      arith::SubIOp::create(
          b, loc, arith::MaxUIOp::create(b, loc, keys.end, keys.begin),
          keys.begin),
      index(blockN));
  auto keyTileAt = [&](Value t) {
    return add(keys.begin, mul(t, index(blockN)));
  };
  specialize(
      tiles, keyTileBytes(), queryTileBytes(),
      [&](Value t, Value first) {
        ifThen(first, [&] { stageQueryTile(batch, head, q0, Value()); });
        stageKeyTile(batch, kvHead, keyTileAt(t), stageOf(t));
      },
      [&](Value t, Value first, Value full) {
        ifThen(first, [&] { loadQueryTile(Value(), batch, head, q0, full); });
        Value k0 = keyTileAt(t);
        loadPanels(maps->k, layout.kOffset, stageOf(t), layout.k, batch, kvHead,
                   k0, full);
        loadPanels(maps->v, layout.vOffset, stageOf(t), layout.v, batch, kvHead,
                   k0, full);
      },
      consume);
}

} // namespace

attnc::MmaGradLayout
attnc::getMmaGradLayout(attn::AttentionScoringOpInterface op) {
  int64_t blockM = op.getTiles()->getBlockM();
  int64_t blockN = op.getTiles()->getBlockN();
  int64_t headDim = op.getQ().getType().getDimSize(3);
  int64_t headDimV = op.getV().getType().getDimSize(3);
  bool swizzled = op.getTiles()->getMma() == attn::MmaKind::Warpgroup;
  MmaGradLayout layout;
  layout.q = {blockM, headDim, swizzled};
  layout.dout = {blockM, headDimV, swizzled};
  layout.k = {blockN, headDim, swizzled};
  layout.v = {blockN, headDimV, swizzled};
  layout.dsT = {blockN, blockM, swizzled};
  int64_t offset = 0;
  // ldmatrix and cp.async need 16-byte aligned rows; the 128-byte swizzle
  // repeats every 1024 bytes.
  int64_t alignment = swizzled ? 1024 : 128;
  auto place = [&](int64_t bytes) {
    int64_t at = offset;
    offset = llvm::alignTo(offset + bytes, alignment);
    return at;
  };
  auto placeQuerySide = [&] {
    layout.qOffset = place(layout.q.bytes());
    layout.doutOffset = place(layout.dout.bytes());
    layout.lseOffset = place(blockM * 4);
    layout.deltaOffset = place(blockM * 4);
  };
  auto placeKeySide = [&] {
    layout.kOffset = place(layout.k.bytes());
    layout.vOffset = place(layout.v.bytes());
  };
  // The walked side first, its second stage right after it.
  bool walksQueries = isa<attn::AttentionGradKVOp>(op.getOperation());
  if (walksQueries)
    placeQuerySide();
  else
    placeKeySide();
  layout.stageBytes = offset;
  // A producer may run stages - 1 tiles ahead of the slowest consumer.
  // Three against two (H200, quick runs): D128 backward 1.024-1.036x, causal
  // 1.023x once causal blocks start longest first (bench/NOTES.md).
  layout.stages = mmaProducerThreads(op) ? 3 : 2;
  offset *= layout.stages;
  if (walksQueries)
    placeKeySide();
  else
    placeQuerySide();
  if (walksQueries)
    layout.dsTOffset = place(layout.dsT.bytes());
  auto kv = dyn_cast<attn::AttentionGradKVOp>(op.getOperation());
  if (kv && kv.getDqAccum() && swizzled)
    layout.dqOffset = place(blockM * headDim * 4);
  if (mmaProducerThreads(op)) {
    layout.fullOffset = place(layout.stages * 8);
    layout.freeOffset = place(layout.stages * 8);
  }
  layout.bytes = offset;
  return layout;
}

void attnc::emitMmaGradKV(OpBuilder &b, Location loc,
                          attn::AttentionGradKVOp op,
                          const KernelBuffers &buffers,
                          const MmaGradLayout &layout, Value shared,
                          Value threadId, ValueRange ids) {
  Value dqAccum = op.getDqAccum() ? buffers.results[2] : Value();
  MmaGradKernel(b, loc, op, op.getScoreGrad(), buffers, layout, shared,
                threadId, op.getRowSwizzle())
      .keyBlock(ids, buffers.results[0], buffers.results[1], dqAccum);
}

void attnc::emitMmaGradQ(OpBuilder &b, Location loc, attn::AttentionGradQOp op,
                         const KernelBuffers &buffers,
                         const MmaGradLayout &layout, Value shared,
                         Value threadId, ValueRange ids) {
  MmaGradKernel(b, loc, op, op.getScoreGrad(), buffers, layout, shared,
                threadId)
      .queryBlock(ids, buffers.results[0]);
}
