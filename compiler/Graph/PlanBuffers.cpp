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

struct AttnPlanBuffersPass
    : attnc::impl::AttnPlanBuffersBase<AttnPlanBuffersPass> {
  void runOnOperation() override {
    std::set<int64_t> free;
    int64_t slots = 0;
    llvm::DenseMap<Value, int64_t> slotOf;
    WalkResult result = getOperation().walk([&](Operation *op) {
      if (auto alloc = dyn_cast<attnrt::AllocOp>(op)) {
        int64_t slot = free.empty() ? slots++ : *free.begin();
        free.erase(slot);
        alloc.setSlot(slot);
        slotOf[alloc] = slot;
      } else if (auto dealloc = dyn_cast<attnrt::DeallocOp>(op)) {
        auto slot = slotOf.find(dealloc.getBuffer());
        if (slot == slotOf.end()) {
          dealloc.emitError() << "frees a buffer that no attnrt.alloc of "
                                 "this function allocated";
          return WalkResult::interrupt();
        }
        free.insert(slot->second);
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
