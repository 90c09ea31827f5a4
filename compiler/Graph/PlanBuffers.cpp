//===- PlanBuffers.cpp - Memory slots of a program's buffers --------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Buffers whose lifetimes do not overlap share memory. Sizes are symbolic
// until a call binds them, so the plan assigns slots, not offsets: a buffer
// takes the lowest slot free when it is allocated (freed by an earlier
// dealloc), and the runtime makes each slot as large as its largest
// buffer, which never needs more memory than separate buffers would.
//
//===----------------------------------------------------------------------===//

#include "compiler/Passes.h"
#include "dialects/attnrt/AttnRTOps.h"

#include <set>

namespace attnc {
#define GEN_PASS_DEF_ATTNPLANBUFFERS
#include "compiler/Passes.h.inc"
} // namespace attnc

using namespace mlir;

namespace {

/// Slots in program order; a buffer's slot is free again after its
/// dealloc, so any later use of the buffer is an error.
class SlotPlanner {
public:
  LogicalResult visit(Operation *op) {
    if (auto alloc = dyn_cast<attnrt::AllocOp>(op))
      return allocate(alloc), success();
    if (auto dealloc = dyn_cast<attnrt::DeallocOp>(op))
      return release(dealloc);
    for (Value operand : op->getOperands())
      if (auto alloc = freed.lookup(operand))
        return op->emitError() << "uses buffer '" << alloc.getName()
                               << "' after its attnrt.dealloc";
    return success();
  }

private:
  void allocate(attnrt::AllocOp alloc) {
    int64_t slot = free.empty() ? slots++ : *free.begin();
    free.erase(slot);
    alloc.setSlot(slot);
    slotOf[alloc] = slot;
  }

  LogicalResult release(attnrt::DeallocOp dealloc) {
    Value buffer = dealloc.getBuffer();
    if (auto alloc = freed.lookup(buffer))
      return dealloc.emitError()
             << "frees buffer '" << alloc.getName() << "' a second time";
    auto slot = slotOf.find(buffer);
    if (slot == slotOf.end())
      return dealloc.emitError() << "frees a buffer that no attnrt.alloc of "
                                    "this function allocated";
    free.insert(slot->second);
    freed[buffer] = buffer.getDefiningOp<attnrt::AllocOp>();
    return success();
  }

  std::set<int64_t> free;
  int64_t slots = 0;
  llvm::DenseMap<Value, int64_t> slotOf;
  llvm::DenseMap<Value, attnrt::AllocOp> freed;
};

struct AttnPlanBuffersPass
    : attnc::impl::AttnPlanBuffersBase<AttnPlanBuffersPass> {
  void runOnOperation() override {
    SlotPlanner planner;
    WalkResult result = getOperation().walk([&](Operation *op) {
      return failed(planner.visit(op)) ? WalkResult::interrupt()
                                       : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
