//===- MmaKernel.h - Tensor-core attention kernels --------------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_CONVERSION_ATTNTOGPU_MMAKERNEL_H
#define ATTNC_COMPILER_CONVERSION_ATTNTOGPU_MMAKERNEL_H

#include "compiler/Conversion/AttnToTiled/BlockBuilder.h"
#include "dialects/attn/AttnOps.h"
#include "mlir/IR/Builders.h"

#include <algorithm>
#include <optional>

namespace attnc {

/// The tensor-core instructions a kernel is built on.
enum class MmaKind {
  /// mma.sync m16n8k16 per warp, operands through ldmatrix (sm_80 and up).
  Sync,
  /// wgmma m64nNk16 per warpgroup of four warps, operands read by the tensor
  /// cores from 128-byte swizzled shared memory (sm_90a).
  Warpgroup,
};

/// A tensor-core kernel: its instructions and tiles. A warp owns 16 query
/// rows in both kinds.
struct MmaConfig {
  MmaKind kind;
  int64_t blockM, blockN;
  int64_t threads() const { return blockM / 16 * 32; }
};

/// The mma.sync kernel: 64 keys per tile; 128 query rows for head dims up
/// to 64, 64 above (wider heads need more registers per thread, and
/// 128-row blocks then leave one block per SM). Measured: bench/NOTES.md.
inline MmaConfig syncMmaConfig(int64_t headDimV) {
  return {MmaKind::Sync, headDimV <= 64 ? 128 : 64, 64};
}

/// The warpgroup kernel: warpgroups of 64 query rows share each key tile,
/// three up to head dim 64, two above (the O accumulator grows with the
/// head dim and 384 threads leave 168 registers each); 128 keys per tile
/// up to head dim 128, 64 above, which keeps S and O within the register
/// file and the K/V stages within shared memory. Measured on an H200:
/// bench/NOTES.md.
inline MmaConfig warpgroupMmaConfig(int64_t headDim, int64_t headDimV) {
  int64_t widest = std::max(headDim, headDimV);
  return {MmaKind::Warpgroup, widest <= 64 ? 192 : 128,
          widest <= 128 ? 128 : 64};
}

/// The tensor-core kernel `op` gets on sm_90a unless its tiles say
/// otherwise: none for f32 inputs (tf32 would lose precision) or head dims
/// that are not multiples of 16; the warpgroup kernel for head dims that
/// are multiples of 64 up to 256 (whole 128-byte swizzle panels); the
/// mma.sync kernel for the rest.
inline std::optional<MmaConfig>
preferredMmaConfig(mlir::attn::AttentionOp op) {
  mlir::Type element = op.getQ().getType().getElementType();
  int64_t headDim = op.getQ().getType().getDimSize(3);
  int64_t headDimV = op.getV().getType().getDimSize(3);
  if (!(element.isF16() || element.isBF16()) || headDim % 16 != 0 ||
      headDimV % 16 != 0)
    return std::nullopt;
  if (headDim % 64 == 0 && headDimV % 64 == 0 && headDim <= 256 &&
      headDimV <= 256)
    return warpgroupMmaConfig(headDim, headDimV);
  return syncMmaConfig(headDimV);
}

/// The tensor-core kernel of `op` with its pinned tiles: the preferred one
/// when the tiles are its tiles, else the mma.sync kernel when they are
/// that kernel's, else, where wgmma applies, a warpgroup kernel when they
/// are 64, 128 or 192 rows (one to three warpgroups) by 64 or 128 keys;
/// none (the scalar kernel) otherwise.
inline std::optional<MmaConfig> getMmaConfig(mlir::attn::AttentionOp op) {
  std::optional<MmaConfig> preferred = preferredMmaConfig(op);
  if (!preferred || !op.getTiles())
    return std::nullopt;
  int64_t blockM = op.getTiles()->getBlockM();
  int64_t blockN = op.getTiles()->getBlockN();
  for (MmaConfig config :
       {*preferred, syncMmaConfig(op.getV().getType().getDimSize(3))})
    if (config.blockM == blockM && config.blockN == blockN)
      return config;
  if (preferred->kind == MmaKind::Warpgroup && blockM % 64 == 0 &&
      blockM <= 192 && (blockN == 64 || blockN == 128))
    return MmaConfig{MmaKind::Warpgroup, blockM, blockN};
  return std::nullopt;
}

/// One tile in shared memory, in the input element type. mma.sync tiles
/// are row-major with rows padded by 8 elements (16 bytes) so that ldmatrix
/// reads hit every bank once. Warpgroup tiles are `width / 64` panels of
/// `rows` x 64 elements, each row 128 bytes with its 16-byte chunks
/// permuted by the row index mod 8: the 128-byte swizzle wgmma reads.
struct MmaTileLayout {
  int64_t rows, width, rowStride; // rowStride: elements, mma.sync only
  bool swizzled;
  int64_t bytes() const {
    return swizzled ? rows * width * 2 : rows * rowStride * 2;
  }
};

/// Shared memory of the tensor-core kernel: a q tile, two stages of k tiles
/// and two (mma.sync) or four (wgmma; three where four do not fit) stages
/// of v tiles. The next key tile is copied while the current one is used;
/// the wgmma kernel also keeps the previous v tile, whose P V product is
/// still running, and one more so that a warpgroup may run a tile ahead of
/// the other. Every tile starts at a multiple of 1024 bytes, the swizzle's
/// period. The wgmma kernel's mbarriers follow the tiles: per key-tile
/// stage "full" (its copies landed) and "k free" (both warpgroups' S done),
/// per v stage "v free" (both warpgroups' P V done).
struct MmaSharedLayout {
  MmaTileLayout q, k, v;
  int64_t qOffset;
  int64_t kOffset, kStageBytes; // stage s at kOffset + s * kStageBytes
  int64_t vOffset, vStageBytes, vStages;
  int64_t fullOffset, kFreeOffset, vFreeOffset; // 8 bytes per stage
  int64_t bytes;
};
MmaSharedLayout getMmaSharedLayout(mlir::attn::AttentionOp op,
                                   const MmaConfig &config);

/// Emits the kernel body of block (qBlock, head, batch) for thread
/// `threadId` of config.threads(); `shared` is the dynamic shared memory
/// (i8, 1024-byte aligned for the warpgroup kernel).
void emitMmaKernel(mlir::OpBuilder &b, mlir::Location loc,
                   mlir::attn::AttentionOp op, const MmaConfig &config,
                   const KernelOperands &operands,
                   mlir::Value shared, mlir::Value threadId, mlir::Value qBlock,
                   mlir::Value head, mlir::Value batch);

} // namespace attnc

#endif // ATTNC_COMPILER_CONVERSION_ATTNTOGPU_MMAKERNEL_H
