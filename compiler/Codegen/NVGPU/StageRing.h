//===- StageRing.h - Producer/consumer stages of shared memory --*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// What a warp-specialized kernel's producer warpgroup and its consumer
// warpgroups share: rings of shared-memory stages guarded by mbarriers
// ("full": the producer's copies landed; "free": every consumer is done
// with the stage), TMA loads of a swizzled tile by 64-column boxes, and the
// register split that `setmaxnreg` makes between them.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_CODEGEN_NVGPU_STAGERING_H
#define ATTNC_COMPILER_CODEGEN_NVGPU_STAGERING_H

#include "compiler/Codegen/NVGPU/MmaAttention.h"
#include "compiler/Codegen/NVGPU/SharedTiles.h"

namespace attnc {

/// The threads that copy tiles: the producer warpgroup where the kernel has
/// one, else all.
inline int64_t stagingThreads(mlir::attn::AttentionScoringOpInterface op) {
  int64_t producers = mmaProducerThreads(op);
  return producers ? producers : mmaThreads(op);
}

/// The thread's index among those that copy tiles.
mlir::Value stagingThread(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::attn::AttentionScoringOpInterface op,
                          mlir::Value threadId);

/// The named barrier of a warp-specialized block's consumer warpgroups
/// (0 is the block's; TensorCoreTurn takes 1 to 4).
constexpr int32_t kConsumersBarrier = 5;

/// Rings of mbarriers in dynamic shared memory: a ring of `stages` has one
/// 8-byte barrier per stage from its byte offset on; the barrier of a
/// stage completes one phase per tile that uses the stage.
class StageBarriers : protected KernelEmitter {
public:
  StageBarriers(mlir::OpBuilder &b, mlir::Location loc, mlir::Value shared)
      : KernelEmitter(b, loc), shared(shared) {}

  /// The barrier of `slot` in the ring at byte `offset`.
  mlir::Value at(int64_t offset, mlir::Value slot);
  /// The slot of tile `tile` in a ring of `stages`.
  mlir::Value slotOf(mlir::Value tile, int64_t stages);
  /// Waits until `bar` completes its phase for use `use` (0, 1, ...).
  void wait(mlir::Value bar, mlir::Value use);
  void arrive(mlir::Value bar);
  /// Waits until tile `tile`'s copies landed (ring `offset` of `stages`)
  /// and makes them visible to wgmma, which reads through the async proxy.
  void waitForFull(int64_t offset, mlir::Value tile, int64_t stages);
  /// Waits until every consumer is done with the tile that the ring held
  /// before tile `tile` (the first `stages` tiles find their stages free).
  void waitForFree(int64_t offset, mlir::Value tile, int64_t stages);
  /// Tells the producer that this thread is done with tile `tile`'s stage.
  void release(int64_t offset, mlir::Value tile, int64_t stages);

private:
  mlir::Value shared;
};

/// Loads rows from `row` of `head` and `batch` into the swizzled `tile` at
/// `byteOffset` + `stageBytes` of dynamic shared memory by TMA: a box per
/// 64-column panel (`map` describes such boxes), each completing its bytes
/// on `full`.
void loadPanels(mlir::OpBuilder &b, mlir::Location loc, TileStager &stager,
                mlir::Value shared, mlir::Type element, mlir::Value map,
                int64_t byteOffset, mlir::Value stageBytes,
                const MmaTileLayout &tile, mlir::Value row, mlir::Value head,
                mlir::Value batch, mlir::Value full);

/// What `setmaxnreg` gives each consumer thread of a block of `threads`
/// whose `producerThreads` keep `producerRegisters`: its registers at
/// launch (ptxas fits the block in the 64K file, in multiples of 8) and its
/// share of those the producer hands back, which are all there is to take
/// (a larger request waits forever), up to the 256 a thread can have.
int32_t consumerRegisters(int64_t threads, int64_t producerThreads,
                          int64_t producerRegisters);

} // namespace attnc

#endif // ATTNC_COMPILER_CODEGEN_NVGPU_STAGERING_H
