//===- StageRing.cpp - Producer/consumer stages of shared memory ----------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/NVGPU/StageRing.h"

#include "dialects/attngpu/AttnGPUOps.h"

#include <algorithm>

using namespace mlir;

Value attnc::stagingThread(OpBuilder &b, Location loc,
                           attn::AttentionScoringOpInterface op,
                           Value threadId) {
  if (mmaProducerThreads(op) == 0)
    return threadId;
  return arith::SubIOp::create(
      b, loc, threadId,
      arith::ConstantIndexOp::create(b, loc, mmaConsumerThreads(op)));
}

Value attnc::StageBarriers::at(int64_t offset, Value slot) {
  return attngpu::MBarrierOp::create(
      b, loc, attngpu::MBarrierType::get(b.getContext()), shared,
      add(index(offset), mul(slot, index(8))));
}

Value attnc::StageBarriers::slotOf(Value tile, int64_t stages) {
  return arith::RemUIOp::create(b, loc, tile, index(stages));
}

void attnc::StageBarriers::wait(Value bar, Value use) {
  attngpu::MBarrierWaitOp::create(
      b, loc, bar, toI32(arith::RemUIOp::create(b, loc, use, index(2))));
}

void attnc::StageBarriers::arrive(Value bar) {
  attngpu::MBarrierArriveOp::create(b, loc, bar);
}

void attnc::StageBarriers::waitForFull(int64_t offset, Value tile,
                                       int64_t stages) {
  wait(at(offset, slotOf(tile, stages)),
       arith::DivUIOp::create(b, loc, tile, index(stages)));
  // Copies by cp.async or element stores are the generic proxy's.
  attngpu::FenceProxyAsyncOp::create(b, loc);
}

void attnc::StageBarriers::waitForFree(int64_t offset, Value tile,
                                       int64_t stages) {
  Value reuses = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, tile,
                                       index(stages));
  ifThen(reuses, [&] {
    Value reused = arith::SubIOp::create(b, loc, tile, index(stages));
    wait(at(offset, slotOf(reused, stages)),
         arith::DivUIOp::create(b, loc, reused, index(stages)));
  });
}

void attnc::StageBarriers::release(int64_t offset, Value tile, int64_t stages) {
  arrive(at(offset, slotOf(tile, stages)));
}

void attnc::loadPanels(OpBuilder &b, Location loc, TileStager &stager,
                       Value shared, Type element, Value map,
                       int64_t byteOffset, Value stageBytes,
                       const MmaTileLayout &tile, Value row, Value head,
                       Value batch, Value full) {
  auto i32 = [&](Value v) {
    return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), v).getResult();
  };
  auto i32Constant = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 32).getResult();
  };
  MmaTileLayout panel{tile.rows, 64, true};
  for (int64_t p = 0; p < tile.rowStride() / 64; ++p) {
    Value at = arith::AddIOp::create(
        b, loc,
        arith::ConstantIndexOp::create(b, loc, byteOffset + p * panel.bytes()),
        stageBytes);
    attngpu::TmaLoadOp::create(
        b, loc, map,
        ValueRange{i32Constant(p * 64), i32(row), i32(head), i32(batch)}, full,
        stager.sharedTile(shared, at, panel, element));
  }
}

int32_t attnc::consumerRegisters(int64_t threads, int64_t producerThreads,
                                 int64_t producerRegisters) {
  constexpr int64_t kRegisterFile = 65536, kMostPerThread = 256;
  int64_t atLaunch = std::min<int64_t>(kRegisterFile / threads, 255) / 8 * 8;
  int64_t handedBack = (atLaunch - producerRegisters) * producerThreads;
  int64_t consumers = threads - producerThreads;
  return static_cast<int32_t>(
      std::min(atLaunch + handedBack / consumers / 8 * 8, kMostPerThread));
}
