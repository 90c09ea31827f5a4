//===- KernelConfig.cpp - Tiles and tensor cores per kernel op ------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The one place that decides how each kernel op is tiled for a target; the
// decision is written on the op (`tiles`, `block_size`) and the lowerings
// only read it. Measurements behind the choices: bench/NOTES.md.
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/Config/KernelConfig.h"
#include "compiler/Codegen/Common/RowSwizzle.h"
#include "compiler/Codegen/Common/VectorAccess.h"
#include "compiler/Passes.h"
#include "dialects/attn/AttnOps.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

namespace attnc {
#define GEN_PASS_DEF_ATTNKERNELCONFIG
#include "compiler/Passes.h.inc"
} // namespace attnc

using namespace mlir;
using attn::MmaKind;

bool attnc::packsGroupOnWarpgroup(attn::AttentionScoringOpInterface op,
                                  const TargetDescription &target) {
  int64_t group = op.getGroupSize();
  auto fitsWgmma = [](Value operand) {
    return attn::headDimFitsMma(
        MmaKind::Warpgroup,
        cast<RankedTensorType>(operand.getType()).getDimSize(3));
  };
  return target.hasWgmma && !target.onlyMmaSync &&
         op.getQ().getType().getDimSize(2) == 1 && group > 1 && group <= 64 &&
         attn::elementFitsMma(op.getQ().getType().getElementType()) &&
         fitsWgmma(op.getQ()) && fitsWgmma(op.getV());
}

namespace {

struct Tiles {
  int64_t blockM, blockN;
  MmaKind mma;
  bool operator==(const Tiles &o) const {
    return blockM == o.blockM && blockN == o.blockN && mma == o.mma;
  }
};

/// The larger of `op`'s query/key and value head dims, which sizes its
/// registers and shared memory.
int64_t widestHeadDim(attn::AttentionScoringOpInterface op) {
  return std::max(op.getQ().getType().getDimSize(3),
                  op.getV().getType().getDimSize(3));
}

/// The largest useful tile along a sequence of static length `extent`: the
/// next power of two, capped at `preferred`.
int64_t fitToExtent(int64_t preferred, int64_t extent) {
  if (ShapedType::isDynamic(extent))
    return preferred;
  return std::min(preferred,
                  static_cast<int64_t>(llvm::PowerOf2Ceil(extent)));
}

/// The mma.sync kernel: 64 keys per tile; 128 query rows for head dims up
/// to 64, 64 above (wider heads need more registers per thread, and
/// 128-row blocks then leave one block per SM).
Tiles syncTiles(int64_t headDimV) {
  return {headDimV <= 64 ? 128 : 64, 64, MmaKind::Sync};
}

/// Whether `op`'s score region applies a math function (tanh, exp, ...) to
/// the score itself: libdevice's expansions keep more registers per element
/// than arithmetic on the score and the indices (ALiBi's slope, computed
/// from the head, is math on an index).
bool scoreTakesMath(attn::AttentionScoringOpInterface op) {
  if (op.getScore().empty())
    return false;
  SetVector<Operation *> users;
  getForwardSlice(op.getScore().front().getArgument(0), &users);
  return llvm::any_of(users, [](Operation *user) {
    return isa<math::MathDialect>(user->getDialect());
  });
}

/// The wgmma kernel: warpgroups of 64 query rows share each key tile,
/// three up to head dim 64, two above (the O accumulator grows with the
/// head dim and 384 threads leave 168 registers each); 128 keys per tile
/// up to head dim 128, 64 above, which keeps S and O within the register
/// file and the K/V stages within shared memory. A score region's
/// per-element math fits three warpgroups only beside a producer (a
/// forward op without a mask region) and without math on the score (H200:
/// ALiBi at head dim 64 1.13x two; a softcap's tanh spilled 12 bytes):
/// without a producer ALiBi spilled 268 bytes with 128 keys and ran 1.09x
/// slower with 64. Two warpgroups that evaluate a mask region beside a
/// producer (usesProducer) take 64 keys, which leaves them the registers
/// for it.
Tiles warpgroupTiles(attn::AttentionScoringOpInterface op) {
  int64_t widest = widestHeadDim(op);
  bool forward = isa<attn::AttentionOp>(op.getOperation());
  bool besideProducer = forward && op.getMask().empty();
  bool threeFit =
      op.getScore().empty() || (besideProducer && !scoreTakesMath(op));
  int64_t blockM = widest <= 64 && threeFit ? 192 : 128;
  bool fewerKeys = forward && !op.getMask().empty() && blockM == 128;
  return {blockM, widest <= 128 && !fewerKeys ? 128 : 64, MmaKind::Warpgroup};
}

/// Split-key attention on a static query length of at most 64 (decoding).
/// With a query length of 1 the rows hold a key/value group's heads
/// (packsGroup): on a wgmma target one warpgroup of 64 rows over 64-key
/// tiles, two blocks per SM (H200, GQA 32:8 hd128 B8 Nk32k: 0.255 ms at 16
/// ranges against 0.280 for mma.sync warps; bench/NOTES.md). Otherwise
/// mma.sync warps of 16 query rows, as few as hold the rows, over key tiles
/// of 32; its blocks are many (a block per range, head and batch), so small
/// ones (42 KB of shared memory at head dim 128: five per SM) keep the
/// machine full and its tail short. Whole attention on fewer than 16 query
/// rows takes them too (fitted tiles would have no tensor-core kind).
std::optional<Tiles> keyRangeTiles(attn::AttentionScoringOpInterface op,
                                   const attnc::TargetDescription &target) {
  int64_t seqQ = op.getQ().getType().getDimSize(2);
  int64_t limit = op.getKeySplits() == 1 ? 15 : 64;
  if (ShapedType::isDynamic(seqQ) || seqQ > limit)
    return std::nullopt;
  if (attnc::packsGroupOnWarpgroup(op, target))
    return Tiles{64, 64, MmaKind::Warpgroup};
  int64_t rows = seqQ == 1 ? std::min<int64_t>(op.getGroupSize(), 64) : seqQ;
  return Tiles{static_cast<int64_t>(llvm::alignTo(rows, 16)), 32,
               MmaKind::Sync};
}

/// The tensor-core kernel `op` prefers on `target`: none for f32 inputs
/// (tf32 would lose precision) or head dims that are not multiples of 16;
/// keyRangeTiles for decoding; wgmma for head dims up to 256 (tiles padded
/// to whole 128-byte swizzle panels); mma.sync for the rest.
std::optional<Tiles> preferredMma(attn::AttentionScoringOpInterface op,
                                  const attnc::TargetDescription &target) {
  int64_t headDim = op.getQ().getType().getDimSize(3);
  int64_t headDimV = op.getV().getType().getDimSize(3);
  auto fits = [&](MmaKind mma) {
    return attn::headDimFitsMma(mma, headDim) &&
           attn::headDimFitsMma(mma, headDimV);
  };
  if (!target.hasMmaSync ||
      !attn::elementFitsMma(op.getQ().getType().getElementType()) ||
      !fits(MmaKind::Sync))
    return std::nullopt;
  if (std::optional<Tiles> ranges = keyRangeTiles(op, target))
    return ranges;
  if (target.hasWgmma && !target.onlyMmaSync && fits(MmaKind::Warpgroup))
    return warpgroupTiles(op);
  return syncTiles(headDimV);
}

/// The tensor-core kind for tiles of `blockM` x `blockN`: the preferred
/// kernel's when they are its tiles, mma.sync when they are that kernel's,
/// wgmma when it is preferred and they fit it, else mma.sync when they fit
/// it; none (the scalar kernel) otherwise.
MmaKind mmaForTiles(attn::AttentionScoringOpInterface op,
                    const attnc::TargetDescription &target, int64_t blockM,
                    int64_t blockN) {
  std::optional<Tiles> preferred = preferredMma(op, target);
  if (!preferred)
    return MmaKind::None;
  for (Tiles candidate :
       {*preferred, syncTiles(op.getV().getType().getDimSize(3))})
    if (candidate.blockM == blockM && candidate.blockN == blockN)
      return candidate.mma;
  for (MmaKind mma : {preferred->mma, MmaKind::Sync})
    if (attn::tilesFitMma(mma, blockM, blockN))
      return mma;
  return MmaKind::None;
}

/// Tiles for an op without any: host 64 x 64 keeps a block's f32 tiles in
/// L2 for head dims up to 256; the scalar GPU kernel keeps f32 tiles in
/// shared memory, so wide heads take 32 x 32. Decoding's tiles already fit
/// the query length.
std::pair<int64_t, int64_t>
defaultTiles(attn::AttentionScoringOpInterface op,
             const attnc::TargetDescription &target) {
  int64_t blockM = 64, blockN = 64;
  if (target.isGpu()) {
    if (std::optional<Tiles> mma = preferredMma(op, target)) {
      if (mma == keyRangeTiles(op, target))
        return {mma->blockM,
                fitToExtent(mma->blockN, op.getK().getType().getDimSize(2))};
      blockM = mma->blockM;
      blockN = mma->blockN;
    } else if (op.getQ().getType().getDimSize(3) > 128) {
      blockM = blockN = 32;
    }
  }
  return {fitToExtent(blockM, op.getQ().getType().getDimSize(2)),
          fitToExtent(blockN, op.getK().getType().getDimSize(2))};
}

/// A producer warpgroup for the wgmma kernel of a forward op with two
/// consumer warpgroups (128 rows; H200: dense head dim 128 1.03-1.05x,
/// ALiBi at head dim 64 1.31x, head dim 256 by TMA 1.29-1.36x, its
/// consumers keeping 232 registers beside a 32-register producer) or three
/// (192 rows at head dim 64, whose consumers keep 160). With a mask region
/// only beside two consumers of 64-key tiles up to head dim 128: with 128
/// keys their mask evaluation spilled 20 bytes (packed documents by TMA;
/// 104 with a cp.async producer), and three consumers keep too few.
std::optional<bool> usesProducer(attn::AttentionScoringOpInterface op,
                                 int64_t blockM, int64_t blockN,
                                 std::optional<MmaKind> mma) {
  if (mma != MmaKind::Warpgroup || (blockM != 128 && blockM != 192) ||
      !isa<attn::AttentionOp>(op.getOperation()))
    return std::nullopt;
  int64_t widest = widestHeadDim(op);
  if (!op.getMask().empty() && (blockM != 128 || blockN != 64 || widest > 128))
    return std::nullopt;
  return true;
}

/// Decoding with grouped-query attention on tensor cores: the query heads
/// of a key/value group fill a block's rows, which then reads the group's
/// keys and values once instead of once per head.
std::optional<bool> packsGroup(attn::AttentionScoringOpInterface op,
                               int64_t blockM, std::optional<MmaKind> mma) {
  int64_t group = op.getGroupSize();
  if (!mma || *mma == MmaKind::None || group == 1 ||
      op.getQ().getType().getDimSize(2) != 1 || group > blockM)
    return std::nullopt;
  return true;
}

/// The kernel-schedule options of attn-kernel-config.
struct KernelSchedule {
  bool pingPong = false;
};

FailureOr<KernelSchedule> parseSchedule(ArrayRef<std::string> options,
                                        Operation *op) {
  KernelSchedule schedule;
  for (const std::string &option : options) {
    if (option == "ping-pong")
      schedule.pingPong = true;
    else
      return op->emitError() << "unknown kernel-schedule option '" << option
                             << "'; expected ping-pong";
  }
  return schedule;
}

/// An option kernel-schedule asks for (`asked`) where it `applies`.
std::optional<bool> scheduled(bool asked, bool applies) {
  return asked && applies ? std::optional<bool>(true) : std::nullopt;
}

/// Whether turns apply to `op`'s kernel: wgmma with two or more warpgroups.
bool takesTurns(attn::AttentionScoringOpInterface op, int64_t blockM,
                int64_t blockN, std::optional<MmaKind> mma) {
  return mma == MmaKind::Warpgroup &&
         attn::wgmmaWarpgroups(
             blockM, blockN, isa<attn::AttentionGradKVOp>(op.getOperation())) >=
             2;
}

/// Turns by default: a causal forward op (no window, mask or score region)
/// with two consumer warpgroups up to head dim 128, where one warpgroup's
/// diagonal-tile softmax runs under the other's products (H200, causal
/// D128 N4k 1.01x, GQA 32:8 N8k 1.02x, N8k 1.00x, N16k 0.99x: the longer
/// the loop, the more it is dense work, where turns ran 0.97x at D128 and
/// 0.87x at D256).
bool turnsByDefault(attn::AttentionScoringOpInterface op, int64_t blockM,
                    std::optional<bool> producer) {
  return isa<attn::AttentionOp>(op.getOperation()) && op.getCausal() &&
         !op.getWindowLeft() && !op.getWindowRight() && op.getMask().empty() &&
         op.getScore().empty() && blockM == 128 && widestHeadDim(op) <= 128 &&
         producer.value_or(false);
}

LogicalResult configureAttention(attn::AttentionScoringOpInterface op,
                                 const attnc::TargetDescription &target,
                                 KernelSchedule schedule) {
  std::optional<attn::TilesAttr> pinned = op.getTiles();
  auto [blockM, blockN] = pinned ? std::pair{pinned->getBlockM(),
                                             pinned->getBlockN()}
                                 : defaultTiles(op, target);
  std::optional<MmaKind> mma = pinned ? pinned->getMma() : std::nullopt;
  if (!target.isGpu()) {
    if (mma && *mma != MmaKind::None)
      return op.emitOpError() << "tensor-core tiles (mma = "
                              << attn::stringifyMmaKind(*mma)
                              << ") need a GPU target, not " << target.name;
    mma = std::nullopt;
  } else if (!mma) {
    mma = mmaForTiles(op, target, blockM, blockN);
  } else if (*mma == MmaKind::Warpgroup && !target.hasWgmma) {
    return op.emitOpError() << "wgmma tiles need a target with wgmma, not "
                            << target.name;
  }
  std::optional<bool> packGroup =
      pinned ? pinned->getPackGroup() : packsGroup(op, blockM, mma);
  std::optional<bool> producer =
      pinned ? pinned->getProducer() : usesProducer(op, blockM, blockN, mma);
  // A producer loads by TMA (H200, dense D128: 1.28x the cp.async
  // producer, 1.22x causal; bench/NOTES.md).
  std::optional<bool> tma =
      pinned ? pinned->getTma()
             : (producer.value_or(false) ? std::optional<bool>(true)
                                         : std::nullopt);
  std::optional<bool> pingPong =
      pinned
          ? pinned->getPingPong()
          : scheduled(schedule.pingPong || turnsByDefault(op, blockM, producer),
                      takesTurns(op, blockM, blockN, mma));
  op->setAttr("tiles",
              attn::TilesAttr::get(op.getContext(), blockM, blockN, mma,
                                   packGroup, producer, tma, pingPong));
  return success();
}

/// Whether `op`'s inputs fit the gradient kernels of `mma` on `target`.
/// wgmma takes head dims up to 128 (the key/value kernel's warpgroups keep
/// dK and dV of 64 keys in registers), multiples of 64 where the key/value
/// kernel adds dq (its warpgroups split dq's columns at a swizzle panel).
bool gradFitsMma(attn::AttentionScoringOpInterface op, MmaKind mma,
                 const attnc::TargetDescription &target) {
  int64_t headDim = op.getQ().getType().getDimSize(3);
  int64_t headDimV = op.getV().getType().getDimSize(3);
  bool fitsSync = target.hasMmaSync &&
                  attn::elementFitsMma(op.getQ().getType().getElementType()) &&
                  attn::headDimFitsMma(MmaKind::Sync, headDim) &&
                  attn::headDimFitsMma(MmaKind::Sync, headDimV);
  if (mma != MmaKind::Warpgroup)
    return fitsSync;
  auto keyValue = dyn_cast<attn::AttentionGradKVOp>(op.getOperation());
  bool splitsDq = keyValue && keyValue.getDqAccum();
  return fitsSync && target.hasWgmma && std::max(headDim, headDimV) <= 128 &&
         (!splitsDq || attn::wgmmaKeyValueAddsDq(headDim));
}

/// The gradient kernels take their tiles from the op (attn.attention_grad
/// may pin them) or the kernel's own: key blocks of block_n keys over query
/// tiles of block_m rows (attention_grad_kv), query blocks of block_m rows
/// over key tiles of block_n keys (attention_grad_q). On a GPU: wgmma
/// where it fits, 64 queries x 128 keys for the key/value kernel (a
/// warpgroup per 64 keys, dq split between them by columns) and 128
/// queries x 64 keys for the query kernel (a warpgroup per 64 queries; S
/// and dP of 64 keys beside dQ in registers); else mma.sync, square tiles
/// of 64 (4 warps) up to head dim 128 and 32 above (dK and dV stay in
/// registers); else the scalar kernel,
/// whose f32 tiles of both sides live in shared memory: 64 rows up to head
/// dim 64, 32 up to 128, 16 above.
Tiles defaultGradTiles(attn::AttentionScoringOpInterface op, MmaKind mma,
                       const attnc::TargetDescription &target) {
  int64_t widest = widestHeadDim(op);
  if (mma == MmaKind::Warpgroup)
    return isa<attn::AttentionGradKVOp>(op.getOperation())
               ? Tiles{64, 128, mma}
               : Tiles{128, 64, mma};
  int64_t tile = !target.isGpu()        ? 64
                 : mma == MmaKind::Sync ? (widest <= 128 ? 64 : 32)
                 : widest <= 64         ? 64
                 : widest <= 128        ? 32
                                        : 16;
  return {tile, tile, mma};
}

/// Pinned tiles must fit their kernel: mma.sync square ones; wgmma a
/// warpgroup (64 rows) or two of the block's own side, and 64 queries per
/// walked tile of the key/value kernel (the M of its dq product).
LogicalResult checkGradTiles(attn::AttentionScoringOpInterface op, Tiles tiles,
                             const attnc::TargetDescription &target) {
  bool keyValue = isa<attn::AttentionGradKVOp>(op.getOperation());
  auto oneOrTwoWarpgroups = [](int64_t rows) {
    return rows == 64 || rows == 128;
  };
  if (tiles.mma == MmaKind::Warpgroup &&
      (!target.isGpu() || !gradFitsMma(op, tiles.mma, target) ||
       !oneOrTwoWarpgroups(tiles.blockM) || !oneOrTwoWarpgroups(tiles.blockN) ||
       (keyValue && tiles.blockM != 64)))
    return op.emitOpError()
           << "wgmma gradient kernels need a target with wgmma, f16 or bf16 "
              "inputs with head dims that are multiples of 16 up to 128 (of "
              "64 where the key/value kernel adds dq), and tiles of 64 "
              "(key/value kernel) or 64 or 128 (query kernel) queries by 64 "
              "or 128 keys; got "
           << tiles.blockM << "x" << tiles.blockN;
  if (tiles.mma == MmaKind::Sync &&
      (!target.isGpu() || !gradFitsMma(op, tiles.mma, target) ||
       tiles.blockM != tiles.blockN))
    return op.emitOpError()
           << "mma_sync gradient kernels need a GPU target, f16 or bf16 "
              "inputs with head dims that are multiples of 16, and square "
              "tiles; got "
           << tiles.blockM << "x" << tiles.blockN;
  return success();
}

LogicalResult configureGradKernel(attn::AttentionScoringOpInterface op,
                                  const attnc::TargetDescription &target,
                                  KernelSchedule schedule) {
  std::optional<attn::TilesAttr> pinned = op.getTiles();
  std::optional<MmaKind> mma = pinned ? pinned->getMma() : std::nullopt;
  if (target.isGpu() && !mma)
    mma = gradFitsMma(op, MmaKind::Warpgroup, target) && !target.onlyMmaSync
              ? MmaKind::Warpgroup
          : gradFitsMma(op, MmaKind::Sync, target) ? MmaKind::Sync
                                                   : MmaKind::None;
  Tiles tiles = defaultGradTiles(op, mma.value_or(MmaKind::None), target);
  if (pinned)
    tiles = {pinned->getBlockM(), pinned->getBlockN(), tiles.mma};
  if (failed(checkGradTiles(op, tiles, target)))
    return failure();
  std::optional<bool> pingPong =
      pinned ? pinned->getPingPong()
             : scheduled(schedule.pingPong,
                         takesTurns(op, tiles.blockM, tiles.blockN, mma));
  // wgmma gradient kernels are warp-specialized, their producer loading by
  // TMA (bench/NOTES.md, "The backward pass"), but for the key/value kernel
  // that adds dq, whose consumers need more registers than a producer
  // leaves them.
  auto kv = dyn_cast<attn::AttentionGradKVOp>(op.getOperation());
  std::optional<bool> specialized =
      mma == MmaKind::Warpgroup && !(kv && kv.getDqAccum())
          ? std::optional<bool>(true)
          : std::nullopt;
  std::optional<bool> producer = pinned ? pinned->getProducer() : specialized;
  std::optional<bool> tma = pinned ? pinned->getTma() : specialized;
  op->setAttr("tiles", attn::TilesAttr::get(op->getContext(), tiles.blockM,
                                            tiles.blockN, mma,
                                            /*pack_group=*/std::nullopt,
                                            producer, tma, pingPong));
  return success();
}

/// Rows per block of the delta kernel: a thread per row on a GPU.
void configureGradDelta(attn::AttentionGradDeltaOp op,
                        const attnc::TargetDescription &target) {
  if (!op.getBlockSize())
    op.setBlockSize(target.isGpu() ? 128 : 256);
}

/// Output elements per block of a combine kernel: a thread per element on
/// a GPU.
void configureCombine(attn::AttentionCombineOp op,
                      const attnc::TargetDescription &target) {
  if (!op.getBlockSize())
    op.setBlockSize(target.isGpu() ? 256 : 16384);
}

/// Elements per block of a cast, elementwise or head-layout kernel: host
/// blocks are chunks of work for one thread; GPU blocks are 256 threads
/// computing 8 elements each (a 16-byte chunk of 2-byte elements, the
/// vector width of ElementKernel's chunks), or, for a cast of swizzled
/// rows, the kSwizzledChunkColumns of 4 slots each.
template <typename Op>
void configureElements(Op op, const attnc::TargetDescription &target) {
  if (op.getBlockSize())
    return;
  int64_t perThread = attnc::kElementVectorWidth;
  if (auto castOp = dyn_cast<attn::CastOp>(op.getOperation());
      castOp && castOp.getInRowSwizzle())
    perThread = attnc::kSwizzledChunkColumns;
  op.setBlockSize(target.isGpu() ? 256 * perThread : 16384);
}

/// A matmul is a cuBLASLt call on the GPU, whose heuristics pick the
/// kernel per shape; on the host, one thread computes a tile of 32 rows by
/// 64 columns, which keeps a's rows and the accumulators in L1.
void configureMatmul(attn::MatmulOp op,
                     const attnc::TargetDescription &target) {
  if (op.getTile() || op.getLibrary())
    return;
  if (target.isGpu())
    op.setLibrary("cublaslt");
  else
    op.setTile(ArrayRef<int64_t>{32, 64});
}

/// Rows (a norm), partial rows (its gradient) or columns (sum_rows) of
/// a block: on a GPU 8 warps of a row each, or 32 columns that 8 warps sum
/// together; on the host chunks of one thread's work.
void configureNorm(Operation *op, const attnc::TargetDescription &target) {
  if (op->hasAttr("block_size"))
    return;
  bool columns = isa<attn::SumRowsOp>(op);
  int64_t block = target.isGpu() ? (columns ? 32 : 8)
                  : columns      ? 1024
                  : isa<attn::RmsNormGradOp, attn::LayerNormGradOp>(op) ? 1
                                                                        : 64;
  op->setAttr("block_size",
              IntegerAttr::get(IntegerType::get(op->getContext(), 64), block));
}

/// Rows of an embedding or cross-entropy kernel block, or slices of 64
/// columns of table rows of an embedding gradient's (on a GPU a warp each,
/// 8 warps),
/// or tokens of a token-mean gradient's block (8 warps over 1024 on a GPU;
/// a thread's chunk on the host).
void configureTokenOp(Operation *op, const attnc::TargetDescription &target) {
  if (op->hasAttr("block_size"))
    return;
  bool tokens = isa<attn::TokenMeanGradOp>(op);
  int64_t block = tokens ? 1024 : target.isGpu() ? 8 : 16;
  op->setAttr("block_size",
              IntegerAttr::get(IntegerType::get(op->getContext(), 64), block));
}

struct AttnKernelConfigPass
    : attnc::impl::AttnKernelConfigBase<AttnKernelConfigPass> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<attnc::TargetDescription> description =
        attnc::TargetDescription::get(target, tensorCores, [&] {
          return getOperation().emitError();
        });
    if (failed(description))
      return signalPassFailure();
    FailureOr<KernelSchedule> schedule =
        parseSchedule(kernelSchedule, getOperation());
    if (failed(schedule))
      return signalPassFailure();
    WalkResult result = getOperation().walk([&](Operation *op) {
      if (isa<attn::AttentionOp, attn::AttentionSplitOp>(op))
        return failed(configureAttention(
                   cast<attn::AttentionScoringOpInterface>(op), *description,
                   *schedule))
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      if (isa<attn::AttentionGradKVOp, attn::AttentionGradQOp>(op))
        return failed(configureGradKernel(
                   cast<attn::AttentionScoringOpInterface>(op), *description,
                   *schedule))
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      if (auto delta = dyn_cast<attn::AttentionGradDeltaOp>(op))
        configureGradDelta(delta, *description);
      if (auto combine = dyn_cast<attn::AttentionCombineOp>(op))
        configureCombine(combine, *description);
      if (auto castOp = dyn_cast<attn::CastOp>(op))
        configureElements(castOp, *description);
      if (auto elementwise = dyn_cast<attn::ElementwiseOp>(op))
        configureElements(elementwise, *description);
      if (auto split = dyn_cast<attn::SplitHeadsOp>(op))
        configureElements(split, *description);
      if (auto merge = dyn_cast<attn::MergeHeadsOp>(op))
        configureElements(merge, *description);
      if (auto matmul = dyn_cast<attn::MatmulOp>(op))
        configureMatmul(matmul, *description);
      if (isa<attn::RmsNormOp, attn::RmsNormGradOp, attn::LayerNormOp,
              attn::LayerNormGradOp, attn::SumRowsOp>(op))
        configureNorm(op, *description);
      if (isa<attn::CrossEntropyOp, attn::CrossEntropyGradOp,
              attn::CrossEntropyPartialOp, attn::CrossEntropyCombineOp,
              attn::TokenMeanGradOp, attn::EmbeddingOp, attn::EmbeddingGradOp>(
              op))
        configureTokenOp(op, *description);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
