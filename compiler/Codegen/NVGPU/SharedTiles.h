//===- SharedTiles.h - Shared-memory tiles of the tensor-core kernels -*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Where a tensor-core kernel keeps its operands in shared memory and how
// tiles of a [B, H, N, D] input get there. Tiles are `attngpu.shared_tile`
// views addressed by logical (row, col); their physical layout (rows padded
// by 8 elements for ldmatrix, the 128-byte swizzle for wgmma) is applied by
// attngpu-lower-shared-tiles, never by the code that uses them.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_CODEGEN_NVGPU_SHAREDTILES_H
#define ATTNC_COMPILER_CODEGEN_NVGPU_SHAREDTILES_H

#include "compiler/Codegen/Common/KernelEmitter.h"
#include "dialects/attn/AttnOps.h"

namespace attnc {

/// One tile in shared memory, in the input element type: `rows` x `width`,
/// padded rows (mma.sync) or the 128-byte swizzle (wgmma) of whole 64-column
/// panels (the columns past `width` are never read).
struct MmaTileLayout {
  int64_t rows, width;
  bool swizzled;
  /// Elements per row in memory.
  int64_t rowStride() const {
    return swizzled ? (width + 63) / 64 * 64 : width + 8;
  }
  int64_t bytes() const { return rows * rowStride() * 2; }
};

/// Shared memory of the tensor-core kernel: a q tile, two stages of k tiles
/// and two (mma.sync) or four (wgmma; three where four do not fit) stages
/// of v tiles. The next key tile is copied while the current one is used;
/// the wgmma kernel also keeps the previous v tile, whose P V product is
/// still running, and one more so that a warpgroup may run a tile ahead of
/// the other. Every tile starts at a multiple of 1024 bytes, the swizzle's
/// period. The wgmma kernel's mbarriers follow the tiles: per key-tile
/// stage "full" (its copies landed) and "k free" (both warpgroups' S done),
/// per v stage "v free" (both warpgroups' P V done), and per group of
/// output rows (up to one per consumer warpgroup) "out staged" (its O
/// written over q's stage, for the producer to store by TMA).
/// With a mask region,
/// the block's list of non-empty key tiles comes last: `listCapacity` i32
/// entries, then their count.
struct MmaSharedLayout {
  MmaTileLayout q, k, v;
  int64_t qOffset;
  int64_t kOffset, kStageBytes; // stage s at kOffset + s * kStageBytes
  int64_t vOffset, vStageBytes, vStages;
  int64_t fullOffset, kFreeOffset, vFreeOffset; // 8 bytes per stage
  int64_t outStagedOffset; // 8 bytes per consumer warpgroup
  int64_t listOffset = 0, listCapacity = 0;
  int64_t bytes;
};

/// The layout of `op`'s tensor-core kernel (its tiles say which); at most
/// `sharedMemoryLimit` bytes where a smaller v ring allows.
MmaSharedLayout getMmaSharedLayout(mlir::attn::AttentionScoringOpInterface op,
                                   int64_t sharedMemoryLimit);

/// A [B, H, N, D] input and, when its layout allows 16-byte loads (unit
/// inner stride, outer strides and base aligned to 8 elements), a flat view
/// of its buffer for them. Decided once per kernel: the same strides hold
/// for every tile.
struct GlobalSource {
  mlir::Value input;
  mlir::Value flat; // 1-D view of the buffer from the input's offset
  mlir::Value strides[3];
  mlir::Value vectorized; // i1
};

/// A [B, H, N] input of 32-bit values (the lse and delta of the backward
/// pass) as a flat view of its buffer, for one 4-byte copy per value; or a
/// [B, H, N, D] buffer's rows (the forward output's pair stores).
struct GlobalRowValues {
  mlir::Value flat;
  mlir::Value strides[3];
};

/// Copies tiles of inputs into shared tiles with `threads` threads. Their
/// copies of a tile unroll, unless `rolled`: then a loop over row passes
/// with addresses stepped through it keeps few registers live (a producer
/// warpgroup, which hands most of its registers to the consumers).
class TileStager : protected KernelEmitter {
public:
  TileStager(mlir::OpBuilder &b, mlir::Location loc, mlir::Value threadId,
             int64_t threads, bool rolled = false)
      : KernelEmitter(b, loc), threadId(threadId), threads(threads),
        rolled(rolled) {}

  GlobalSource makeSource(mlir::Value input);
  GlobalRowValues makeRowValuesSource(mlir::Value input);

  /// The tile of `layout` at `byteOffset` of the dynamic shared memory.
  mlir::Value sharedTile(mlir::Value shared, mlir::Value byteOffset,
                         const MmaTileLayout &layout, mlir::Type element);

  /// Copies rows [0, count) of the input from sequence position `first`
  /// into `tile`, zero-filling its other rows: the tensor cores compute on
  /// whole tiles (of the input's head dim: a swizzled tile's padding
  /// columns are left as they are). Asynchronous 16-byte copies (cp.async,
  /// which the caller commits and waits for) when the source allows them, else
  /// element loads and stores.
  void stage(const GlobalSource &source, mlir::Value tile, mlir::Value batch,
             mlir::Value head, mlir::Value first, mlir::Value count);

  /// Copies entries [0, count) of row [batch, head, first:] of the input
  /// into the 1-D shared `array` by cp.async, zero-filling its other
  /// entries.
  void stageRowValues(const GlobalRowValues &source, mlir::Value array,
                      mlir::Value batch, mlir::Value head, mlir::Value first,
                      mlir::Value count);

  /// Makes `stage` copy element by element whatever the source, from now
  /// on (`true`) or no longer: a TMA producer's fallback, for a layout TMA
  /// cannot describe, which has no 16-byte copies either (both need 16-byte
  /// aligned bases and strides); without the cp.async path the fallback
  /// fits the producer's few registers.
  void copyElementsOnly(bool only) { elementsOnly = only; }

private:
  void stageVectors(const GlobalSource &source, mlir::Value tile,
                    mlir::Value batch, mlir::Value head, mlir::Value first,
                    mlir::Value count);
  void stageElements(mlir::Value input, mlir::Value tile, mlir::Value batch,
                     mlir::Value head, mlir::Value first, mlir::Value count);

  mlir::Value threadId;
  int64_t threads;
  bool rolled;
  bool elementsOnly = false;
};

} // namespace attnc

#endif // ATTNC_COMPILER_CODEGEN_NVGPU_SHAREDTILES_H
