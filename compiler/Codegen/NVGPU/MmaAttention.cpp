//===- MmaAttention.cpp - Tensor-core attention kernels -------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The flash-attention recurrence on tensor cores, FlashAttention-2 style: a
// warp owns 16 query rows. Per key tile:
//
//   S = Q Kᵀ        mma.sync through ldmatrix, or wgmma on swizzled tiles
//                   (MmaFragments.h); S in registers either way
//   mask, score     per element of the fragments (ScoreModel, maskScore),
//                   only on partial tiles for the mask
//   softmax         updateRow over the fragment rows: row max across the
//                   quad of lanes sharing a row; exp2 by ex2.approx.ftz
//   O += P V        P converted to the input type in registers: an S
//                   fragment pair is exactly an A fragment of both kinds
//
// m and l live in registers per thread (l as a per-thread partial sum,
// reduced across the quad once at the end), O as Dv / 8 fragments carried
// by the key loop.
//
// The wgmma kernel defers each tile's P V to the next tile, where it is
// issued behind that tile's S and runs while that tile's softmax does
// (FlashAttention-3's intra-warpgroup overlap). Its warpgroups synchronize
// through mbarriers in shared memory instead of a block-wide barrier per
// tile: "full" (a tile's copies landed), "k free" and "v free" (every
// warpgroup is done with a stage), so one may run a tile ahead of another.
// With `producer` tiles it is warp-specialized as FlashAttention-3 is: a
// producer warpgroup copies the q, key and value tiles, up to the stages
// ahead of the consumers, which only compute; `setmaxnreg` moves the
// producer's registers to them; with `tma` tiles one producer thread loads
// each tile by TMA, a box per 64-column panel, from tensor maps the runtime
// makes. Otherwise each thread copies its part of the next tile once the
// stages it overwrites are free. With `ping_pong` tiles the consumer
// warpgroups issue their products in turn (named barriers), so that one's
// softmax runs while the tensor cores do the other's products.
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/NVGPU/MmaAttention.h"

#include "compiler/Codegen/Common/OnlineSoftmax.h"
#include "compiler/Codegen/Common/TileClassifier.h"
#include "compiler/Codegen/NVGPU/MmaFragments.h"
#include "compiler/Codegen/NVGPU/StageRing.h"
#include "dialects/attngpu/AttnGPUOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

#include <array>
#include <limits>
#include <optional>
#include <tuple>

using namespace mlir;
using attnc::AFragment;
using P = arith::CmpIPredicate;

namespace {

/// How far (log2 units) a tile's row max may exceed the running max before
/// the lazily rescaling kernels move it: exponents stay below 2^8, well
/// inside bf16 and f16 probabilities.
constexpr double kRescaleSlack = 8.0;

/// The scores of the thread's two rows (fragment registers 0, 1 and 2, 3),
/// reduced across the quad of lanes that share a row.
class FragmentScoreRows : public attnc::ScoreRows {
public:
  FragmentScoreRows(attnc::FragmentEmitter &fragments, OpBuilder &b,
                    Location loc, SmallVector<Value> &values)
      : fragments(fragments), b(b), loc(loc), values(values) {}

  Value rowMax(int64_t row) override {
    Value max = arith::ConstantOp::create(
        b, loc, b.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
    forRow(row, [&](Value &s) {
      max = arith::MaximumFOp::create(b, loc, max, s);
    });
    return fragments.quadReduce(max, /*max=*/true);
  }

  Value exponentiate(int64_t row, Value factor, Value negPivot) override {
    Value sum = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
    forRow(row, [&](Value &s) {
      s = attngpu::Exp2Op::create(
          b, loc, b.getF32Type(),
          math::FmaOp::create(b, loc, s, factor, negPivot));
      sum = arith::AddFOp::create(b, loc, sum, s);
    });
    return sum;
  }

private:
  template <typename Fn> void forRow(int64_t row, Fn fn) {
    for (size_t j = 0; j < values.size(); j += 4)
      for (int64_t r = 2 * row; r < 2 * row + 2; ++r)
        fn(values[j + r]);
  }

  attnc::FragmentEmitter &fragments;
  OpBuilder &b;
  Location loc;
  SmallVector<Value> &values;
};

class MmaAttentionKernel : attnc::KernelEmitter {
public:
  MmaAttentionKernel(OpBuilder &b, Location loc,
                     attn::AttentionScoringOpInterface op,
                     const attnc::AttentionBuffers &x,
                     const attnc::MmaSharedLayout &layout, Value shared,
                     Value threadId, const attnc::BlockIds &ids);

  void emit();

private:
  /// Registers per thread of the producer after `setmaxnreg`: what its
  /// partly unrolled cp.async loop needs (at 40 it spilled), or by TMA,
  /// with element copies as the fallback, 32, which leaves the consumers of
  /// a 512-thread block (three warpgroups at head dim 64) 160, as many as
  /// they use.
  int32_t producerRegisters() const { return maps ? 32 : 64; }
  bool warpgroup() const { return isWarpgroup; }
  bool hasProducer() const { return attnc::mmaProducerThreads(op) > 0; }

  // Geometry and shared memory.
  void setUpBlock();
  void initBarriers();
  Value barrier(int64_t offset, Value slot) {
    return barriers.at(offset, slot);
  }
  Value stageOf(Value tileNumber, int64_t stages) {
    return barriers.slotOf(tileNumber, stages);
  }
  Value kTile(Value stage);
  Value vTile(Value stage);
  Value columnsFrom(Value k0);
  Value keyOf(int64_t j, int64_t r) {
    return add(columnBase, index(j * 8 + r % 2));
  }

  // The key loop.
  SmallVector<Value> initialState();
  attnc::TileClass classifyKeyTile(Value k0, Value lane);
  attnc::TileClass classifyKeyTile(Value k0, Value lane, Value first,
                                   Value last);
  void countKeyTiles();
  Value tileList();
  void buildTileList(Value numTiles);
  void classifyIntoList(Value list, Value numTiles);
  Value compactList(Value list, Value numTiles);
  Value listEntry(Value i);
  Value keyTileAt(Value i, Value entry);
  Value keyTileAt(Value i) {
    return keyTileAt(i, useList ? listEntry(i) : Value());
  }
  attnc::TileClass tileClassAt(Value entry, Value k0);
  Value mayAllowAt(Value k0);
  void stageKeyTile(Value k0, Value tileNumber, Value onlyAsync);
  void makeTensorMaps();
  void produceTiles(Value allAsyncWithQ);
  void copyTiles(Value allAsyncWithQ, Value allAsyncKV);
  void loadTilesByTma();
  void loadBoxes(Value map, int64_t byteOffset, Value stageBytes,
                 const attnc::MmaTileLayout &tile, Value head, Value row,
                 Value full) {
    attnc::loadPanels(b, loc, stager, shared, element, map, byteOffset,
                      stageBytes, tile, row, head, ids.batch, full);
  }
  /// Waits until every warpgroup is done with what the k and v stages of
  /// tile `tileNumber` held before (k of tile t - 2, v of tile t - V).
  void waitForFreeStages(Value tileNumber) {
    barriers.waitForFree(layout.kFreeOffset, tileNumber, 2);
    barriers.waitForFree(layout.vFreeOffset, tileNumber, layout.vStages);
  }
  void takeTurns();
  std::tuple<Value, Value, Value> ownRows();
  SmallVector<Value> rescaled(ValueRange o, ArrayRef<Value> alpha,
                              ValueRange state, ValueRange next);
  /// Whether the running max moves lazily (OnlineSoftmax's slack): in the
  /// two-consumer wgmma kernels the rescaling of O waits for the pending
  /// P V and delays the next; three consumers (head dim 64) have no
  /// registers for the branch.
  bool lazyRescaling() const { return warpgroup() && consumerThreads == 256; }
  void consumeTiles();
  void synchronizeTile(Value tileNumber);
  SmallVector<Value> tileStep(Value i, ValueRange state);
  SmallVector<Value> computeTile(ValueRange state, Value k0, Value tileNumber,
                                 attnc::TileClass tileClass);
  SmallVector<Value> skipTile(ValueRange state, Value kStage);
  SmallVector<Value> scoreElements(ArrayRef<SmallVector<Value>> s, Value k0,
                                   Value cols, attnc::TileClass tileClass);
  SmallVector<Value> flushPending(ValueRange state);
  void epilogue(ValueRange final);
  std::array<SmallVector<Value>, 2>
  outputValues(ValueRange final, std::array<Value, 2> inverseSum);
  void storeOutput(const std::array<SmallVector<Value>, 2> &values,
                   const Value owned[2]);
  Value outputTakesPairs(int64_t pairBytes);
  bool outputMayTakeTma();
  int64_t outputGroups();
  void stageOutput(const std::array<SmallVector<Value>, 2> &values);
  void storeStagedOutput();

  attn::AttentionScoringOpInterface op;
  attnc::AttentionBuffers x;
  const attnc::MmaSharedLayout &layout;
  Value shared, threadId;
  Value lane; // the thread's lane in its warp (TileBox::lane)
  attnc::BlockIds ids;
  bool isWarpgroup;
  int64_t blockM, blockN, headDim, headDimV, threads, consumerThreads;
  int64_t keyFragments, outFragments;
  Type element;
  attnc::ScoreModel model;
  attnc::WarpgroupMma wgmma;
  attnc::SyncMma sync;
  attnc::TileStager stager;
  attnc::StageBarriers barriers;
  attnc::LaneGeometry lanes;
  // The block: its rows, the thread's two rows and first column.
  Value seqK, headKV, q0, rows, qLast, diagonal, columnBase;
  // qIdx: the rows in the block's buffers; rowHead and rowQuery: the
  // (head, query row) they stand for (the same but for packed groups).
  Value localRow[2], qIdx[2], rowHead[2], rowQuery[2];
  attnc::BlockGeometry geometry;
  attnc::GlobalSource qSource, kSource, vSource;
  Value qTile, kBegin, kEnd, allAsync;
  // The loop runs over tileCount key tiles: those of [kBegin, kEnd), or
  // where useList holds the block's list of non-empty ones (a mask region's
  // kernel whose range fits the list).
  Value useList, tileCount;
  // Set where the consumer warpgroups take turns on the tensor cores.
  std::optional<attnc::TensorCoreTurn> turn;
  // With `tma` tiles: the tensor maps of q, k and v, and whether the
  // runtime could make all three (else the producer copies).
  struct TensorMaps {
    Value q, k, v, valid;
  };
  std::optional<TensorMaps> maps;
  // Where the output may go out by TMA (outputMayTakeTma): its tensor map
  // and whether the runtime could make it (else pair or element stores).
  struct OutputMap {
    Value map, valid;
    // Row groups staged and stored apart, each behind its own barrier.
    int64_t groups;
  };
  std::optional<OutputMap> outMap;
  // Loop-carried state: m and the partial l of the two rows, then the O
  // accumulator, 4 values per 8 output columns. The wgmma kernel also
  // carries the deferred P (4 registers per 16 keys), whether a P V is
  // pending, and the stage of its V tile. Only a pending product reads its
  // stage: a skipped tile's stage may hold anything, even NaN in keys no
  // query sees, which 0 x NaN would spread.
  int64_t stateO = 4, stateP = 0, pRegisters = 0, statePending = 0;
};

MmaAttentionKernel::MmaAttentionKernel(OpBuilder &b, Location loc,
                                       attn::AttentionScoringOpInterface op,
                                       const attnc::AttentionBuffers &x,
                                       const attnc::MmaSharedLayout &layout,
                                       Value shared, Value threadId,
                                       const attnc::BlockIds &ids)
    : KernelEmitter(b, loc), op(op), x(x), layout(layout), shared(shared),
      threadId(threadId), ids(ids),
      isWarpgroup(op.getTiles()->getMma() == attn::MmaKind::Warpgroup),
      blockM(op.getTiles()->getBlockM()), blockN(op.getTiles()->getBlockN()),
      headDim(op.getQ().getType().getDimSize(3)),
      headDimV(op.getV().getType().getDimSize(3)),
      threads(attnc::mmaThreads(op)),
      consumerThreads(attnc::mmaConsumerThreads(op)), keyFragments(blockN / 8),
      outFragments(headDimV / 8), element(op.getQ().getType().getElementType()),
      model(op), wgmma(b, loc, element), sync(b, loc, element),
      stager(b, loc, attnc::stagingThread(b, loc, op, threadId),
             attnc::stagingThreads(op),
             /*rolled=*/attnc::mmaProducerThreads(op) > 0),
      barriers(b, loc, shared) {
  stateP = stateO + 4 * outFragments;
  pRegisters = blockN / 16 * 4;
  statePending = stateP + pRegisters;
  // Before the key loops, so that classifications may leave them.
  lane = arith::RemUIOp::create(b, loc, threadId, index(32));
}

//===----------------------------------------------------------------------===//
// Geometry and shared memory
//===----------------------------------------------------------------------===//

/// Once per key tile, every copying thread (the producer's, or all) arrives
/// on "full" when its copies land (by TMA, one thread and the bytes), and every
/// consumer thread on "k free" and "v free" when its warpgroup's products no
/// longer read the stage; once per block, every consumer thread on its
/// group's "out staged" when its rows of O are in q's stage.
void MmaAttentionKernel::initBarriers() {
  Value producers = i32(attnc::stagingThreads(op));
  // By TMA, one thread arrives and announces the bytes.
  if (maps)
    producers = arith::SelectOp::create(b, loc, maps->valid, i32(1), producers);
  Value consumers = i32(consumerThreads);
  ifThen(arith::CmpIOp::create(b, loc, P::eq, threadId, index(0)), [&] {
    for (auto [offset, count, arrivals] :
         {std::tuple{layout.fullOffset, int64_t{2}, producers},
          std::tuple{layout.kFreeOffset, int64_t{2}, consumers},
          std::tuple{layout.vFreeOffset, layout.vStages, consumers},
          std::tuple{layout.outStagedOffset, outMap ? outMap->groups : 0,
                     i32(consumerThreads / (outMap ? outMap->groups : 1))}})
      for (int64_t i = 0; i < count; ++i)
        attngpu::MBarrierInitOp::create(b, loc, barrier(offset, index(i)),
                                        arrivals);
  });
  attngpu::MBarrierFenceInitOp::create(b, loc);
  gpu::BarrierOp::create(b, loc);
}

Value MmaAttentionKernel::kTile(Value stage) {
  return stager.sharedTile(
      shared, add(index(layout.kOffset), mul(stage, index(layout.kStageBytes))),
      layout.k, element);
}

Value MmaAttentionKernel::vTile(Value stage) {
  return stager.sharedTile(
      shared, add(index(layout.vOffset), mul(stage, index(layout.vStageBytes))),
      layout.v, element);
}

/// The valid keys of the tile at `k0`.
Value MmaAttentionKernel::columnsFrom(Value k0) {
  return arith::MinUIOp::create(b, loc, index(blockN),
                                arith::SubIOp::create(b, loc, seqK, k0));
}

void MmaAttentionKernel::setUpBlock() {
  lanes = sync.laneGeometry(threadId);
  geometry = attnc::blockGeometry(b, loc, op, x, ids);
  const attnc::BlockGeometry &block = geometry;
  std::tie(seqK, headKV, q0, rows, qLast, diagonal) =
      std::tie(block.seqK, block.headKV, block.q0, block.rows, block.qLast,
               block.diagonal);
  attnc::KeyRange keys = attnc::blockKeys(b, loc, op, block, ids);
  kBegin = keys.begin;
  kEnd = keys.end;
  qSource = stager.makeSource(x.q);
  kSource = stager.makeSource(x.k);
  vSource = stager.makeSource(x.v);
  // The q tile travels with the first key tile's copies: the key loop's
  // first wait covers both, so their latencies overlap. A producer copies
  // it where there is one.
  qTile = stager.sharedTile(shared, index(layout.qOffset), layout.q, element);
  if (!hasProducer()) {
    stager.stage(qSource, qTile, ids.batch, ids.head, q0, rows);
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
  }
  // The thread's two rows within the block (g and g + 8 of its warp) and
  // the key offset of its first column within an 8-key fragment.
  localRow[0] = add(lanes.warpRow, lanes.group);
  localRow[1] = add(localRow[0], index(8));
  for (int64_t h = 0; h < 2; ++h) {
    qIdx[h] = add(q0, localRow[h]);
    std::tie(rowHead[h], rowQuery[h]) =
        attnc::rowPosition(b, loc, geometry, localRow[h]);
  }
  columnBase = mul(lanes.inGroup, index(2));
}

//===----------------------------------------------------------------------===//
// The key loop
//===----------------------------------------------------------------------===//

SmallVector<Value> MmaAttentionKernel::initialState() {
  Value negInf = f32Const(-std::numeric_limits<double>::infinity());
  Value zero = f32Const(0.0);
  SmallVector<Value> init = {negInf, negInf, zero, zero};
  init.append(4 * outFragments, zero);
  if (warpgroup()) {
    init.append(pRegisters,
                arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0)));
    init.push_back(arith::ConstantOp::create(b, loc, b.getBoolAttr(false)));
    init.push_back(index(0));
  }
  return init;
}

/// What the classifier says of the key tile from `k0` for this block's rows;
/// `lane` where whole warps classify the same tile (TileBox::lane).
attnc::TileClass MmaAttentionKernel::classifyKeyTile(Value k0, Value lane) {
  return classifyKeyTile(k0, lane, q0, qLast);
}

/// The same for query rows [first, last] of the block.
attnc::TileClass MmaAttentionKernel::classifyKeyTile(Value k0, Value lane,
                                                     Value first, Value last) {
  Value kLast =
      arith::SubIOp::create(b, loc, add(k0, columnsFrom(k0)), index(1));
  return attnc::classifyTile(
      b, loc, op,
      {ids.batch, geometry.headFirst, first, last, k0, kLast, diagonal,
       geometry.packed ? geometry.headLast : Value(), lane});
}

/// The number of key tiles the loop visits (tileCount), building the list
/// of the non-empty ones where the kernel has one and the range fits it.
void MmaAttentionKernel::countKeyTiles() {
  Value span = arith::SubIOp::create(
      b, loc, arith::MaxUIOp::create(b, loc, kEnd, kBegin), kBegin);
  Value numTiles = arith::CeilDivUIOp::create(b, loc, span, index(blockN));
  tileCount = numTiles;
  if (layout.listCapacity == 0)
    return;
  useList = arith::CmpIOp::create(b, loc, P::ule, numTiles,
                                  index(layout.listCapacity));
  ifThen(useList, [&] { buildTileList(numTiles); });
  Value listed = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      memref::LoadOp::create(b, loc, tileList(),
                             ValueRange{index(layout.listCapacity)}));
  tileCount = arith::SelectOp::create(b, loc, useList, listed, numTiles);
}

/// The key-tile list in shared memory: entries, then their count.
Value MmaAttentionKernel::tileList() {
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto type = MemRefType::get({layout.listCapacity + 1}, b.getI32Type(),
                              nullptr, workgroup);
  return memref::ViewOp::create(b, loc, type, shared, index(layout.listOffset),
                                ValueRange{});
}

/// Lists the block's non-empty key tiles in order: every tile of the range
/// gets its entry, then the first warp compacts the entries and stores
/// their count after them. So the key loop visits no empty tile.
void MmaAttentionKernel::buildTileList(Value numTiles) {
  Value list = tileList();
  classifyIntoList(list, numTiles);
  gpu::BarrierOp::create(b, loc);
  ifThen(arith::CmpIOp::create(b, loc, P::ult, threadId, index(32)), [&] {
    Value count = compactList(list, numTiles);
    ifThen(arith::CmpIOp::create(b, loc, P::eq, threadId, index(0)), [&] {
      memref::StoreOp::create(b, loc, count, list,
                              ValueRange{index(layout.listCapacity)});
    });
  });
  gpu::BarrierOp::create(b, loc);
}

/// Entry t of `list` for each tile t of the range: 4t, plus 1 when partial,
/// plus 2 when the mask region may block; -1 when empty. Warp w classifies
/// tiles w, w + warps, ..., its lanes sharing the reads.
void MmaAttentionKernel::classifyIntoList(Value list, Value numTiles) {
  Value warp = arith::DivUIOp::create(b, loc, threadId, index(32));
  loop(warp, numTiles, index(threads / 32), [&](Value t) {
    attnc::TileClass tile =
        classifyKeyTile(add(kBegin, mul(t, index(blockN))), lane);
    auto bit = [&](Value flag, int64_t weight) {
      return mul(arith::IndexCastUIOp::create(b, loc, b.getIndexType(), flag),
                 index(weight));
    };
    Value code = add(mul(t, index(4)), bit(tile.mayBlock, 1));
    if (tile.regionMayBlock)
      code = add(code, bit(tile.regionMayBlock, 2));
    Value entry = arith::SelectOp::create(
        b, loc, tile.mayAllow,
        arith::IndexCastOp::create(b, loc, b.getI32Type(), code), i32(-1));
    memref::StoreOp::create(b, loc, entry, list, ValueRange{t});
  });
}

/// Moves the kept (non-negative) entries of `list` to its front, in order,
/// 32 at a time: a ballot of the kept ones, each placed after the kept ones
/// of lower lanes. Run by the first warp; returns the count (i32).
Value MmaAttentionKernel::compactList(Value list, Value numTiles) {
  Value laneBit = arith::ShLIOp::create(
      b, loc, i32(1),
      arith::IndexCastOp::create(b, loc, b.getI32Type(), threadId));
  Value below = arith::SubIOp::create(b, loc, laneBit, i32(1));
  auto chunks = scf::ForOp::create(b, loc, index(0), numTiles, index(32),
                                   ValueRange{i32(0)});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(chunks.getBody());
  Value t = add(chunks.getInductionVar(), threadId);
  Value inRange = arith::CmpIOp::create(b, loc, P::ult, t, numTiles);
  Value read = memref::LoadOp::create(
      b, loc, list,
      ValueRange{arith::SelectOp::create(b, loc, inRange, t, index(0))});
  Value entry = arith::SelectOp::create(b, loc, inRange, read, i32(-1));
  Value keep = arith::CmpIOp::create(b, loc, P::sge, entry, i32(0));
  // Every lane has read its entry before the ballot returns, so the stores
  // below (at or before each lane's own entry) overwrite nothing unread.
  Value ballot = NVVM::VoteSyncOp::create(b, loc, b.getI32Type(), i32(-1), keep,
                                          NVVM::VoteSyncKind::ballot);
  Value base = chunks.getRegionIterArgs()[0];
  Value before = math::CtPopOp::create(
      b, loc, arith::AndIOp::create(b, loc, ballot, below));
  Value at = arith::IndexCastOp::create(
      b, loc, b.getIndexType(), arith::AddIOp::create(b, loc, base, before));
  ifThen(keep,
         [&] { memref::StoreOp::create(b, loc, entry, list, ValueRange{at}); });
  scf::YieldOp::create(
      b, loc,
      ValueRange{arith::AddIOp::create(b, loc, base,
                                       math::CtPopOp::create(b, loc, ballot))});
  return chunks.getResult(0);
}

/// Entry `i` of the list (a valid address whatever `useList` says).
Value MmaAttentionKernel::listEntry(Value i) {
  Value at = arith::SelectOp::create(b, loc, useList, i, index(0));
  return memref::LoadOp::create(b, loc, tileList(), ValueRange{at});
}

/// The first key of the loop's tile `i`, whose list entry is `entry` (null
/// without a list).
Value MmaAttentionKernel::keyTileAt(Value i, Value entry) {
  Value dense = add(kBegin, mul(i, index(blockN)));
  if (!useList)
    return dense;
  Value tile = arith::IndexCastOp::create(
      b, loc, b.getIndexType(), arith::ShRUIOp::create(b, loc, entry, i32(2)));
  return arith::SelectOp::create(b, loc, useList,
                                 add(kBegin, mul(tile, index(blockN))), dense);
}

/// The class of the loop's tile from `k0` with list entry `entry`: a listed
/// tile may allow and its entry says whether it may block; otherwise the
/// classifier's, every thread classifying it, so whole warps share the
/// reads.
attnc::TileClass MmaAttentionKernel::tileClassAt(Value entry, Value k0) {
  // Without a list, each of three warpgroups classifies for its own rows
  // (H200, head dim 64 causal: 1.028x). Two classify for the block's: on
  // their own rows, ALiBi at head dim 64 and softcap at 256 ran 0.95x.
  auto classifyOwn = [&] {
    if (!warpgroup() || consumerThreads < 3 * 128)
      return classifyKeyTile(k0, lane);
    auto [first, last, holdsRows] = ownRows();
    attnc::TileClass own = classifyKeyTile(k0, lane, first, last);
    // Where every tile allows (no mask) the loop has no skip branch, and
    // one per tile for the last block's sake ran 0.90x at head dim 64.
    if (!matchPattern(own.mayAllow, m_One()))
      own.mayAllow = arith::AndIOp::create(b, loc, own.mayAllow, holdsRows);
    return own;
  };
  if (!useList)
    return classifyOwn();
  Type i1 = b.getI1Type();
  bool region = !op.getMask().empty();
  SmallVector<Type> types(region ? 3 : 2, i1);
  ValueRange tile = ifElse(
      useList, types,
      [&] {
        SmallVector<Value> listed = {
            arith::ConstantOp::create(b, loc, b.getBoolAttr(true)),
            arith::TruncIOp::create(b, loc, i1, entry)};
        if (region)
          listed.push_back(arith::TruncIOp::create(
              b, loc, i1, arith::ShRUIOp::create(b, loc, entry, i32(1))));
        return listed;
      },
      [&] {
        attnc::TileClass c = classifyOwn();
        SmallVector<Value> own = {c.mayAllow, c.mayBlock};
        if (region)
          own.push_back(c.regionMayBlock);
        return own;
      });
  return {tile[0], tile[1], region ? tile[2] : Value()};
}

/// Whether the tile at `k0` may hold an allowed pair: listed tiles do.
Value MmaAttentionKernel::mayAllowAt(Value k0) {
  if (!useList)
    return classifyKeyTile(k0, lane).mayAllow;
  return ifElse(
      useList, b.getI1Type(),
      [&] {
        return SmallVector<Value>{
            arith::ConstantOp::create(b, loc, b.getBoolAttr(true))};
      },
      [&] {
        return SmallVector<Value>{classifyKeyTile(k0, lane).mayAllow};
      })[0];
}

/// Copies the key and value tile at `k0` into the stages of tile
/// `tileNumber`; the wgmma kernel signals "full" when they land: cp.async
/// copies arrive by themselves, element-wise stores (layouts without 16-byte
/// loads) need a release arrive after them, which must also wait for this
/// thread's copies.
void MmaAttentionKernel::stageKeyTile(Value k0, Value tileNumber,
                                      Value onlyAsync) {
  Value cols = columnsFrom(k0);
  auto copy = [&] {
    stager.stage(kSource, kTile(stageOf(tileNumber, 2)), ids.batch, headKV, k0,
                 cols);
    stager.stage(vSource, vTile(stageOf(tileNumber, layout.vStages)), ids.batch,
                 headKV, k0, cols);
  };
  // With a mask region, a tile the classifier skips is never read, so it is
  // not copied either (sparse masks leave most tiles of the causal range
  // empty); the commit and the barrier arrival below still happen, so the
  // stages' accounting is the same. Without one, the shorthands bound the
  // loop to tiles that are (nearly) all used, and classifying the next tile
  // here would only cost registers (255 instead of 243 for a causal window
  // at hd128, and 1.6x the time). A producer does not classify either: its
  // few registers would not hold the classification, and where the mask
  // region's kernel has a list (ranges of up to 1023 tiles) it lists only
  // tiles to copy.
  if (!op.getMask().empty() && !hasProducer())
    ifThen(mayAllowAt(k0), copy);
  else
    copy();
  if (!warpgroup()) {
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
    return;
  }
  Value full = barrier(layout.fullOffset, stageOf(tileNumber, 2));
  ifThenElse(
      onlyAsync, [&] { attngpu::MBarrierArriveCpAsyncOp::create(b, loc, full); },
      [&] {
        NVVM::CpAsyncCommitGroupOp::create(b, loc);
        NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
        barriers.arrive(full);
      });
}

/// Waits for this tile's copies, then, unless a producer copies the tiles,
/// prefetches the next tile into the stages it may overwrite: the mma.sync
/// kernel after a block-wide barrier, the wgmma kernel once every
/// warpgroup is done with them (k of tile t - 1, v of tile t + 1 - V), so a
/// warpgroup may run up to a tile ahead.
void MmaAttentionKernel::synchronizeTile(Value tileNumber) {
  if (hasProducer()) {
    barriers.waitForFull(layout.fullOffset, tileNumber, 2);
    return;
  }
  Value next = add(tileNumber, index(1));
  Value hasNext = arith::CmpIOp::create(b, loc, P::ult, next, tileCount);
  Value nextK0 = keyTileAt(arith::MinUIOp::create(
      b, loc, next, arith::SubIOp::create(b, loc, tileCount, index(1))));
  if (warpgroup()) {
    barriers.waitForFull(layout.fullOffset, tileNumber, 2);
  } else {
    NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
    gpu::BarrierOp::create(b, loc);
  }
  ifThen(hasNext, [&] {
    if (warpgroup()) {
      waitForFreeStages(next);
    }
    stageKeyTile(nextK0, next, allAsync);
  });
}

SmallVector<Value> MmaAttentionKernel::tileStep(Value i, ValueRange state) {
  Value tileNumber = i;
  // One read of the tile's list entry gives its keys and its class.
  Value entry = useList ? listEntry(i) : Value();
  Value k0 = keyTileAt(i, entry);
  synchronizeTile(tileNumber);
  attnc::TileClass tileClass = tileClassAt(entry, k0);
  ValueRange next = ifElse(
      tileClass.mayAllow, ValueRange(state).getTypes(),
      [&] { return computeTile(state, k0, tileNumber, tileClass); },
      [&] { return skipTile(state, stageOf(tileNumber, 2)); });
  // Every P V that reads tile t - 1's v stage is done by now.
  if (warpgroup())
    ifThen(arith::CmpIOp::create(b, loc, P::uge, tileNumber, index(1)), [&] {
      Value previous = arith::SubIOp::create(b, loc, tileNumber, index(1));
      barriers.arrive(
          barrier(layout.vFreeOffset, stageOf(previous, layout.vStages)));
    });
  return llvm::to_vector(next);
}

/// Per element: the score, and on a tile that is partial (past the end of
/// the keys, or not wholly allowed by the mask) the key bounds and the mask.
SmallVector<Value>
MmaAttentionKernel::scoreElements(ArrayRef<SmallVector<Value>> s, Value k0,
                                  Value cols, attnc::TileClass tileClass) {
  // Keys in 32 bits (extents are below 2^31, and a tile's keys past the end
  // below 2^32): one add per element, where the narrowed score region reads
  // them (attn-narrow-region-indices).
  Value firstKey = toI32(add(k0, columnBase));
  auto indices = [&](int64_t j, int64_t r) {
    Value key = add(firstKey, i32(j * 8 + r % 2));
    return SmallVector<Value>{
        ids.batch, rowHead[r / 2], rowQuery[r / 2],
        arith::IndexCastUIOp::create(b, loc, b.getIndexType(), key)};
  };
  SmallVector<Value> scores;
  for (int64_t j = 0; j < keyFragments; ++j)
    for (int64_t r = 0; r < 4; ++r)
      scores.push_back(model.score(b, loc, s[j][r], indices(j, r)));
  Value partial = arith::CmpIOp::create(b, loc, P::ult, cols, index(blockN));
  if (attnc::hasMask(op))
    partial = arith::OrIOp::create(b, loc, partial, tileClass.mayBlock);
  SmallVector<Type> types(scores.size(), b.getF32Type());
  auto masked = [&](bool withRegion) {
    SmallVector<Value> masked;
    for (int64_t j = 0; j < keyFragments; ++j)
      for (int64_t r = 0; r < 4; ++r) {
        Value inBounds =
            arith::CmpIOp::create(b, loc, P::ult, keyOf(j, r), cols);
        masked.push_back(attnc::maskScore(b, loc, op, diagonal,
                                          scores[j * 4 + r], indices(j, r),
                                          inBounds, withRegion));
      }
    return masked;
  };
  // A partial tile that the region allows whole (a causal diagonal inside
  // one document) skips the region's work per element.
  Value regionMayBlock = tileClass.regionMayBlock;
  return llvm::to_vector(ifElse(
      partial, types,
      [&] {
        if (!regionMayBlock)
          return masked(true);
        return llvm::to_vector(ifElse(
            regionMayBlock, types, [&] { return masked(true); },
            [&] { return masked(false); }));
      },
      [&] { return scores; }));
}

SmallVector<Value> MmaAttentionKernel::computeTile(ValueRange state, Value k0,
                                                   Value tileNumber,
                                                   attnc::TileClass tileClass) {
  Value kStage = stageOf(tileNumber, 2);
  Value vStage = stageOf(tileNumber, layout.vStages);
  // S = Q Kᵀ: blockN / 8 fragments of 16 rows x 8 keys, 4 f32 each. The
  // wgmma kernel issues the pending P V behind it and waits for S only;
  // with nothing pending P is zero and the product reads this tile's own v
  // stage.
  SmallVector<SmallVector<Value>> s;
  SmallVector<Value> oInFlight;
  if (warpgroup()) {
    SmallVector<AFragment> pending;
    for (int64_t i = 0; i < pRegisters; i += 4)
      pending.push_back(AFragment(state.slice(stateP + i, 4)));
    Value pendingStage = arith::SelectOp::create(b, loc, state[statePending],
                                                 state.back(), vStage);
    Value warpgroupIndex = arith::DivUIOp::create(b, loc, lanes.warp, index(4));
    SmallVector<attnc::WgmmaProduct, 2> products = {
        wgmma.scores(qTile, blockM, kTile(kStage), blockN, headDim,
                     warpgroupIndex),
        wgmma.output(llvm::to_vector(state.slice(stateO, 4 * outFragments)),
                     pending, vTile(pendingStage), blockN, headDimV)};
    SmallVector<SmallVector<Value>> issued =
        wgmma.issue(products, /*inFlight=*/1, turn ? &*turn : nullptr);
    for (int64_t j = 0; j < keyFragments; ++j)
      s.push_back(SmallVector<Value>(ArrayRef<Value>(issued[0]).slice(j * 4, 4)));
    oInFlight = issued[1];
    barriers.arrive(barrier(layout.kFreeOffset, kStage)); // S read the k tile
  } else {
    s = sync.scores(qTile, kTile(kStage), blockN, headDim, lanes);
  }
  SmallVector<Value> probabilities =
      scoreElements(s, k0, columnsFrom(k0), tileClass);

  // Online softmax per row half.
  FragmentScoreRows scoreRows(sync, b, loc, probabilities);
  Value factor = model.factor(b, loc);
  SmallVector<Value> result(state.begin(), state.end());
  Value alpha[2];
  for (int64_t h = 0; h < 2; ++h) {
    attnc::SoftmaxUpdate update = attnc::updateRow(
        b, loc, scoreRows, h, {state[h], state[2 + h]}, factor,
        [&](Value v) {
          return attngpu::Exp2Op::create(b, loc, b.getF32Type(), v)
              .getResult();
        },
        lazyRescaling() ? kRescaleSlack : 0.0);
    result[h] = update.next.max;
    result[2 + h] = update.next.sum;
    alpha[h] = update.alpha;
  }

  SmallVector<Value> o(state.slice(stateO, 4 * outFragments));
  if (warpgroup()) {
    SmallVector<Value> waited = wgmma.wait(oInFlight, probabilities);
    o.assign(waited.begin(), waited.begin() + o.size());
    probabilities.assign(waited.begin() + o.size(), waited.end());
  }
  SmallVector<AFragment> p = (warpgroup() ? static_cast<attnc::FragmentEmitter &>(wgmma) : sync)
                                 .probabilityFragments(probabilities);
  // O = alpha O (+ P V now for mma.sync; the wgmma kernel leaves this
  // tile's P pending).
  llvm::copy(rescaled(o, alpha, state, result), result.begin() + stateO);
  if (!warpgroup()) {
    sync.accumulate(p, vTile(vStage), headDimV, lanes,
                    MutableArrayRef<Value>(result).slice(stateO,
                                                         4 * outFragments));
    return result;
  }
  for (auto [i, fragment] : llvm::enumerate(p))
    llvm::copy(fragment, result.begin() + stateP + 4 * i);
  result[statePending] =
      arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
  result.back() = vStage;
  return result;
}

/// alpha O for this thread's accumulator fragments. With lazy rescaling a
/// warp multiplies only when one of its rows' max moved (`state` holds the
/// old maxima, `next` the new), which after the first tiles is rare.
SmallVector<Value> MmaAttentionKernel::rescaled(ValueRange o,
                                                ArrayRef<Value> alpha,
                                                ValueRange state,
                                                ValueRange next) {
  auto multiply = [&] {
    SmallVector<Value> scaled;
    for (auto [i, value] : llvm::enumerate(o))
      scaled.push_back(
          arith::MulFOp::create(b, loc, value, alpha[(i % 4) / 2]));
    return scaled;
  };
  if (!lazyRescaling())
    return multiply();
  Value moved = arith::OrIOp::create(
      b, loc,
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, state[0],
                            next[0]),
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, state[1],
                            next[1]));
  Value anyMoved = NVVM::VoteSyncOp::create(b, loc, b.getI1Type(), i32(-1),
                                            moved, NVVM::VoteSyncKind::any);
  return llvm::to_vector(ifElse(anyMoved, o.getTypes(), multiply, [&] {
    return SmallVector<Value>(o.begin(), o.end());
  }));
}

/// A skipped tile: the pending P V runs now (its V stage is free for later
/// copies after this tile).
SmallVector<Value> MmaAttentionKernel::skipTile(ValueRange state,
                                                Value kStage) {
  SmallVector<Value> result(state.begin(), state.end());
  if (!warpgroup())
    return result;
  barriers.arrive(barrier(layout.kFreeOffset, kStage));
  // A turn per tile, taken or not, keeps the warpgroups in step.
  if (turn)
    turn->await(b, loc);
  llvm::copy(flushPending(state), result.begin() + stateO);
  if (turn)
    turn->pass(b, loc);
  Value noP = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
  std::fill(result.begin() + stateP, result.begin() + stateP + pRegisters,
            noP);
  result[statePending] =
      arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
  return result;
}

/// O += P V for the pending P of `state`, if any, waited for.
SmallVector<Value> MmaAttentionKernel::flushPending(ValueRange state) {
  ValueRange o = state.slice(stateO, 4 * outFragments);
  return llvm::to_vector(ifElse(
      state[statePending], o.getTypes(),
      [&] {
        SmallVector<AFragment> pending;
        for (int64_t i = 0; i < pRegisters; i += 4)
          pending.push_back(AFragment(state.slice(stateP + i, 4)));
        SmallVector<attnc::WgmmaProduct, 2> products = {
            wgmma.output(llvm::to_vector(o), pending, vTile(state.back()),
                         blockN, headDimV)};
        return wgmma.issue(products, /*inFlight=*/0)[0];
      },
      [&] { return SmallVector<Value>(o); }));
}

//===----------------------------------------------------------------------===//
// The kernel
//===----------------------------------------------------------------------===//

/// The row sums across the quad, then normalize and store.
void MmaAttentionKernel::epilogue(ValueRange final) {
  attnc::RowResult result[2];
  Value owned[2];
  for (int64_t h = 0; h < 2; ++h) {
    Value sum = sync.quadReduce(final[2 + h], /*max=*/false);
    result[h] = attnc::finishRow(b, loc, {final[h], sum});
    owned[h] = arith::CmpIOp::create(b, loc, P::ult, localRow[h], rows);
  }
  if (x.out) {
    std::array<SmallVector<Value>, 2> values =
        outputValues(final, {result[0].inverseSum, result[1].inverseSum});
    if (outMap)
      ifThenElse(
          outMap->valid, [&] { stageOutput(values); },
          [&] { storeOutput(values, owned); });
    else
      storeOutput(values, owned);
  }
  if (!x.lse)
    return;
  Value quadLeader =
      arith::CmpIOp::create(b, loc, P::eq, lanes.inGroup, index(0));
  for (int64_t h = 0; h < 2; ++h)
    ifThen(arith::AndIOp::create(b, loc, owned[h], quadLeader), [&] {
      memref::StoreOp::create(b, loc, result[h].lse, x.lse,
                              ValueRange{ids.batch, ids.head, qIdx[h]});
    });
}

/// The thread's O values of its two rows, normalized and rounded to the
/// output's type: per row, the two adjacent columns of each fragment.
std::array<SmallVector<Value>, 2>
MmaAttentionKernel::outputValues(ValueRange final,
                                 std::array<Value, 2> inverseSum) {
  Type outType = cast<MemRefType>(x.out.getType()).getElementType();
  std::array<SmallVector<Value>, 2> values;
  for (int64_t h = 0; h < 2; ++h)
    for (int64_t n = 0; n < outFragments; ++n)
      for (int64_t c = 0; c < 2; ++c) {
        Value value = arith::MulFOp::create(
            b, loc, final[stateO + n * 4 + 2 * h + c], inverseSum[h]);
        if (outType != value.getType())
          value = arith::TruncFOp::create(b, loc, outType, value);
        values[h].push_back(value);
      }
  return values;
}

/// Stores the output values of the thread's owned rows. Where the output's
/// layout allows (unit inner stride, even outer strides, the start aligned
/// to two elements), each pair goes out as one store at a constant offset
/// from its row's start; else element by element, each store computing its
/// own address (on the H200 the element stores were a fifth of a short
/// kernel's warp samples, ncu at B16 N1k D128).
void MmaAttentionKernel::storeOutput(
    const std::array<SmallVector<Value>, 2> &values, const Value owned[2]) {
  Type outType = cast<MemRefType>(x.out.getType()).getElementType();
  attnc::GlobalRowValues out = stager.makeRowValuesSource(x.out);
  int64_t pairBytes = 2 * outType.getIntOrFloatBitWidth() / 8;
  ifThenElse(
      outputTakesPairs(pairBytes),
      [&] {
        auto pairType = VectorType::get({2}, outType);
        for (int64_t h = 0; h < 2; ++h)
          ifThen(owned[h], [&] {
            Value rowStart = add(
                add(mul(ids.batch, out.strides[0]),
                    mul(ids.head, out.strides[1])),
                add(mul(qIdx[h], out.strides[2]), columnBase));
            for (int64_t n = 0; n < outFragments; ++n)
              vector::StoreOp::create(
                  b, loc,
                  vector::FromElementsOp::create(
                      b, loc, pairType,
                      ArrayRef<Value>(values[h]).slice(2 * n, 2)),
                  out.flat, ValueRange{add(rowStart, index(n * 8))},
                  /*nontemporal=*/false, llvm::MaybeAlign(pairBytes));
          });
      },
      [&] {
        for (int64_t h = 0; h < 2; ++h)
          ifThen(owned[h], [&] {
            for (int64_t n = 0; n < outFragments; ++n)
              for (int64_t c = 0; c < 2; ++c)
                memref::StoreOp::create(
                    b, loc, values[h][2 * n + c], x.out,
                    ValueRange{ids.batch, ids.head, qIdx[h],
                               add(columnBase, index(n * 8 + c))});
          });
      });
}

/// Whether the output takes pair stores of `pairBytes` (an i1): its inner
/// stride is 1, its outer strides are even, and its first element starts
/// at a multiple of `pairBytes`.
Value MmaAttentionKernel::outputTakesPairs(int64_t pairBytes) {
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, x.out);
  ValueRange strides = metadata.getStrides();
  auto divides = [&](Value v, int64_t n) -> Value {
    return arith::CmpIOp::create(
        b, loc, P::eq, arith::RemUIOp::create(b, loc, v, index(n)), index(0));
  };
  Value start =
      add(memref::ExtractAlignedPointerAsIndexOp::create(b, loc, x.out),
          mul(metadata.getOffset(), index(pairBytes / 2)));
  Value takes = arith::AndIOp::create(
      b, loc, divides(start, pairBytes),
      arith::CmpIOp::create(b, loc, P::eq, strides[3], index(1)));
  for (int64_t d = 0; d < 3; ++d)
    takes = arith::AndIOp::create(b, loc, takes, divides(strides[d], 2));
  return takes;
}

/// Whether the output may go out through q's stage by TMA: the kernel's
/// own output argument (not a key range's or a packed group's view), in
/// q's element type, with no more panels than q's stage holds, beside two
/// consumer warpgroups. Three (head dim 64: 16 pair stores per thread)
/// measured 2.5% slower with it on the H200 (B4 H16 N4k), causal the same.
bool MmaAttentionKernel::outputMayTakeTma() {
  return maps && x.out && consumerThreads == 256 && !ids.keyRange &&
         !attnc::packsGroup(op) &&
         cast<MemRefType>(x.out.getType()).getElementType() == element &&
         (headDimV + 63) / 64 <= layout.q.rowStride() / 64;
}

/// The row groups the staged output goes out in: one per consumer
/// warpgroup under a mask, whose warpgroups finish apart (the later one's
/// diagonal tile comes last: H200, head dim 128 causal 1.022x), so the
/// earlier one's rows leave first; else the whole block, one barrier.
/// At head dim 256 a barrier per warpgroup, its address from the thread's
/// row, made ptxas spill 4 bytes (as did a shuffle-uniform index and a
/// branch between two constant barriers).
int64_t MmaAttentionKernel::outputGroups() {
  return attnc::hasMask(op) && headDimV <= 128 ? consumerThreads / 128 : 1;
}

/// The tensor maps of `tma` tiles (q's stage also holds the output's
/// boxes): boxes of one 64-column panel of a tile.
void MmaAttentionKernel::makeTensorMaps() {
  if (!op.getTiles()->getTma().value_or(false))
    return;
  auto mapOf = [&](Value input, int64_t rows) {
    return attngpu::TensorMapOp::create(
        b, loc, input, ArrayRef<int64_t>{64, rows, 1, 1}, int64_t{128});
  };
  attngpu::TensorMapOp q = mapOf(x.q, blockM), k = mapOf(x.k, blockN),
                       v = mapOf(x.v, blockN);
  Value valid = arith::AndIOp::create(
      b, loc, q.getValid(),
      arith::AndIOp::create(b, loc, k.getValid(), v.getValid()));
  maps = TensorMaps{q.getMap(), k.getMap(), v.getMap(), valid};
  if (outputMayTakeTma()) {
    int64_t groups = outputGroups();
    attngpu::TensorMapOp out = mapOf(x.out, blockM / groups);
    outMap = OutputMap{out.getMap(), out.getValid(), groups};
  }
}

/// The consumer side of the output's TMA store: each thread writes its
/// values into its rows of q's stage (in q's swizzle; no product reads a
/// warpgroup's rows after its last S), fences them for the async proxy and
/// arrives on its group's "out staged". The producer stores them
/// (storeStagedOutput), so the consumers keep no tensor map or sequence
/// position across the key loop (issued by the consumers, the store made
/// ptxas spill at head dim 256).
void MmaAttentionKernel::stageOutput(
    const std::array<SmallVector<Value>, 2> &values) {
  auto pairType = VectorType::get({2}, element);
  for (int64_t h = 0; h < 2; ++h)
    for (int64_t n = 0; n < outFragments; ++n)
      vector::StoreOp::create(
          b, loc,
          vector::FromElementsOp::create(
              b, loc, pairType, ArrayRef<Value>(values[h]).slice(2 * n, 2)),
          qTile, ValueRange{localRow[h], add(columnBase, index(n * 8))});
  attngpu::FenceProxyAsyncOp::create(b, loc);
  Value group = outMap->groups == 1
                    ? index(0)
                    : arith::DivUIOp::create(b, loc, localRow[0],
                                             index(blockM / outMap->groups));
  barriers.arrive(barrier(layout.outStagedOffset, group));
}

/// The producer's thread that loads by TMA stores each group of staged
/// output rows once they are in: a box per 64-column panel of q's stage,
/// which leaves rows past the output's end unwritten. It waits for the
/// boxes' reads only, before the block ends and releases the stage.
void MmaAttentionKernel::storeStagedOutput() {
  ifThen(outMap->valid, [&] {
    int64_t rows = blockM / outMap->groups;
    attnc::MmaTileLayout box{rows, 64, true};
    int64_t panelBytes = attnc::MmaTileLayout{blockM, 64, true}.bytes();
    for (int64_t g = 0; g < outMap->groups; ++g) {
      barriers.wait(barrier(layout.outStagedOffset, index(g)), index(0));
      for (int64_t p = 0; p < (headDimV + 63) / 64; ++p)
        attngpu::TmaStoreOp::create(
            b, loc,
            stager.sharedTile(
                shared,
                index(layout.qOffset + p * panelBytes + g * box.bytes()), box,
                element),
            outMap->map,
            ValueRange{i32(p * 64), toI32(add(q0, index(g * rows))),
                       toI32(ids.head), toI32(ids.batch)});
    }
    NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
    NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, 0, b.getUnitAttr());
  });
}

/// The producer warpgroup: hands most of its registers to the consumers,
/// then fills the stages, by TMA where the tensor maps are valid.
void MmaAttentionKernel::produceTiles(Value allAsyncWithQ) {
  NVVM::SetMaxRegisterOp::create(b, loc, producerRegisters(),
                                 NVVM::SetMaxRegisterAction::decrease);
  if (!maps) {
    copyTiles(allAsyncWithQ, allAsync);
    return;
  }
  Value tmaThread =
      arith::CmpIOp::create(b, loc, P::eq, threadId, index(consumerThreads));
  ifThenElse(
      maps->valid, [&] { ifThen(tmaThread, [&] { loadTilesByTma(); }); },
      [&] {
        stager.copyElementsOnly(true);
        Value none = arith::ConstantIntOp::create(b, loc, 0, 1);
        copyTiles(none, none);
        stager.copyElementsOnly(false);
      });
  if (outMap)
    ifThen(tmaThread, [&] { storeStagedOutput(); });
}

/// One thread loads each key tile's keys and values into their stages once
/// every consumer is done with what they held (k of tile t - 2, v of tile
/// t - V), the q tile with the first; "full" completes when their bytes
/// (whole boxes, rows past the end as zeros) have landed.
void MmaAttentionKernel::loadTilesByTma() {
  // A tile's boxes fill it whole, padding panels included.
  int64_t tileBytes = layout.k.bytes() + layout.v.bytes();
  loop(index(0), tileCount, index(1), [&](Value t) {
    waitForFreeStages(t);
    Value first = arith::CmpIOp::create(b, loc, P::eq, t, index(0));
    Value full = barrier(layout.fullOffset, stageOf(t, 2));
    attngpu::MBarrierArriveExpectTxOp::create(
        b, loc, full,
        arith::SelectOp::create(
            b, loc, first, i32(tileBytes + layout.q.bytes()), i32(tileBytes)));
    ifThen(first, [&] {
      loadBoxes(maps->q, layout.qOffset, index(0), layout.q, ids.head, q0,
                full);
    });
    Value k0 = keyTileAt(t);
    loadBoxes(maps->k, layout.kOffset,
              mul(stageOf(t, 2), index(layout.kStageBytes)), layout.k, headKV,
              k0, full);
    loadBoxes(maps->v, layout.vOffset,
              mul(stageOf(t, layout.vStages), index(layout.vStageBytes)),
              layout.v, headKV, k0, full);
  });
}

/// The producer's copies (cp.async, or element-wise where the layout does
/// not allow it), the q tile's with the first key tile's; `allAsyncWithQ`
/// and `allAsyncKV` say whether the first tile's and the others' copies
/// are all cp.async.
void MmaAttentionKernel::copyTiles(Value allAsyncWithQ, Value allAsyncKV) {
  stager.stage(qSource, qTile, ids.batch, ids.head, q0, rows);
  loop(index(0), tileCount, index(1), [&](Value t) {
    waitForFreeStages(t);
    Value first = arith::CmpIOp::create(b, loc, P::eq, t, index(0));
    stageKeyTile(
        keyTileAt(t), t,
        arith::SelectOp::create(b, loc, first, allAsyncWithQ, allAsyncKV));
  });
  // A block without key tiles never waited for its q copies.
  NVVM::CpAsyncCommitGroupOp::create(b, loc);
  NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
}

/// The query rows of the thread's warpgroup, which it classifies key tiles
/// for: past its causal diagonal a tile is empty for it (the first of three
/// warpgroups of 64 rows skips up to one 128-key tile per block) and only
/// its own diagonal tile is partial. Rows past the block's end classify as
/// its last row; a warpgroup wholly past it (the last block of a sequence
/// that is not a multiple of 192 rows) holds no rows and skips every tile.
/// (Packed rows are heads at one query row, which every warpgroup holds.)
std::tuple<Value, Value, Value> MmaAttentionKernel::ownRows() {
  // Read from lane 0, the warpgroup is visibly the same across the warp, so
  // the classification stays in uniform registers (computed per thread it
  // spilled at head dim 64, and so did rows kept across the key loop).
  Value warpgroupId =
      gpu::ShuffleOp::create(
          b, loc, toI32(arith::DivUIOp::create(b, loc, threadId, index(128))),
          i32(0), i32(32), gpu::ShuffleMode::IDX)
          .getShuffleResult();
  Value first = add(q0, mul(arith::IndexCastUIOp::create(
                                b, loc, b.getIndexType(), warpgroupId),
                            index(64)));
  Value holdsRows =
      geometry.packed
          ? arith::ConstantOp::create(b, loc, b.getBoolAttr(true)).getResult()
          : arith::CmpIOp::create(b, loc, P::ule, first, qLast).getResult();
  return {arith::MinUIOp::create(b, loc, first, qLast),
          arith::MinUIOp::create(b, loc, add(first, index(63)), qLast),
          holdsRows};
}

/// With `ping_pong` tiles the consumer warpgroups issue each tile's
/// products in turn. Every warpgroup walks the same tiles, taking a turn
/// on each.
void MmaAttentionKernel::takeTurns() {
  if (op.getTiles()->getPingPong().value_or(false))
    turn = attnc::TensorCoreTurn::start(
        b, loc, arith::DivUIOp::create(b, loc, threadId, index(128)),
        consumerThreads / 128);
}

/// The consumers' key loop, then the output.
void MmaAttentionKernel::consumeTiles() {
  takeTurns();
  auto keyLoop = scf::ForOp::create(
      b, loc, index(0), tileCount, index(1), initialState(),
      [&](OpBuilder &nested, Location, Value i, ValueRange state) {
        inside(nested,
               [&] { scf::YieldOp::create(b, loc, tileStep(i, state)); });
      });
  if (!hasProducer()) {
    // A block without key tiles never waited for its q copies.
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
    NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
  }
  SmallVector<Value> final(keyLoop.getResults().begin(),
                           keyLoop.getResults().end());
  if (warpgroup()) // the last tile's P V
    llvm::copy(flushPending(keyLoop.getResults()), final.begin() + stateO);
  epilogue(final);
}

void MmaAttentionKernel::emit() {
  makeTensorMaps();
  if (warpgroup())
    initBarriers();
  setUpBlock();
  // Key and value tiles go through stages of shared memory: the copy of
  // the next tile (cp.async when the layout allows) runs while the current
  // one is used; a tile a mask region's classification skips is not
  // copied. Copies of the first tile also complete the q tile's.
  allAsync =
      arith::AndIOp::create(b, loc, kSource.vectorized, vSource.vectorized);
  Value allAsyncWithQ =
      arith::AndIOp::create(b, loc, allAsync, qSource.vectorized);
  countKeyTiles();
  if (hasProducer()) {
    ifThenElse(
        arith::CmpIOp::create(b, loc, P::uge, threadId, index(consumerThreads)),
        [&] { produceTiles(allAsyncWithQ); },
        [&] {
          NVVM::SetMaxRegisterOp::create(
              b, loc,
              attnc::consumerRegisters(threads, threads - consumerThreads,
                                       producerRegisters()),
              NVVM::SetMaxRegisterAction::increase);
          consumeTiles();
        });
    return;
  }
  ifThen(arith::CmpIOp::create(b, loc, P::ugt, tileCount, index(0)),
         [&] { stageKeyTile(keyTileAt(index(0)), index(0), allAsyncWithQ); });
  consumeTiles();
}

} // namespace

void attnc::emitMmaAttention(OpBuilder &b, Location loc,
                             attn::AttentionScoringOpInterface op,
                             const AttentionBuffers &buffers,
                             const MmaSharedLayout &layout, Value shared,
                             Value threadId, const BlockIds &ids) {
  MmaAttentionKernel(b, loc, op, blockBuffers(b, loc, op, buffers, ids), layout,
                     shared, threadId, ids)
      .emit();
}
