//===- PlanBuffers.cpp - Memory slots of a program's buffers --------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Buffers whose lifetimes do not overlap share memory. Sizes are symbolic
// until a call binds them, so the plan assigns slots, not offsets: a buffer
// takes a slot free when it is allocated (freed by an earlier dealloc), and
// the runtime makes each slot as large as its largest buffer, which never
// needs more memory than separate buffers would.
//
// Which free slot matters: a slot costs its largest buffer, so a small
// buffer in a large slot is free and a large buffer in a small slot grows
// it. Sizes are compared where they can be, as products of the same
// symbols (`B * N * 11264` bytes against `B * N * 4096`): a buffer takes
// the tightest free slot that holds it, else the one that grows least,
// else the lowest.
//
//===----------------------------------------------------------------------===//

#include "compiler/Passes.h"
#include "dialects/attnrt/AttnRTOps.h"

#include <set>
#include <tuple>

namespace attnc {
#define GEN_PASS_DEF_ATTNPLANBUFFERS
#include "compiler/Passes.h.inc"
} // namespace attnc

using namespace mlir;

namespace {

/// A buffer's bytes as a static factor times a product of symbols.
struct SymbolicBytes {
  int64_t factor = 1;
  std::multiset<std::string> symbols;

  static SymbolicBytes of(attnrt::AllocOp alloc) {
    SymbolicBytes bytes;
    Type element = alloc.getType().getElementType();
    bytes.factor = llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);
    for (Attribute dim : alloc.getShape()) {
      if (auto extent = dyn_cast<IntegerAttr>(dim))
        bytes.factor *= extent.getInt();
      else
        bytes.symbols.insert(cast<StringAttr>(dim).str());
    }
    return bytes;
  }
};

/// How well a free slot suits a buffer: slots that hold it already come
/// first (the tightest first), then those it grows (the least first), then
/// those whose size cannot be compared with it.
struct SlotFit {
  int rank = 2;
  int64_t cost = 0;

  bool operator<(const SlotFit &other) const {
    return std::tie(rank, cost) < std::tie(other.rank, other.cost);
  }

  /// The fit of `buffer` into a slot whose buffers have sizes `sizes`.
  static SlotFit of(const SymbolicBytes &buffer,
                    ArrayRef<SymbolicBytes> sizes) {
    int64_t largest = 0;
    for (const SymbolicBytes &size : sizes) {
      if (size.symbols != buffer.symbols)
        return SlotFit();
      largest = std::max(largest, size.factor);
    }
    if (largest >= buffer.factor)
      return SlotFit{0, largest - buffer.factor};
    return SlotFit{1, buffer.factor - largest};
  }
};

/// The buffer a view's rows are rows of; any other value itself.
Value storageOf(Value value) {
  auto view = value.getDefiningOp<attnrt::ViewOp>();
  return view ? view.getSource() : value;
}

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
      if (auto alloc = freed.lookup(storageOf(operand)))
        return op->emitError() << "uses buffer '" << alloc.getName()
                               << "' after its attnrt.dealloc";
    return success();
  }

private:
  void allocate(attnrt::AllocOp alloc) {
    SymbolicBytes bytes = SymbolicBytes::of(alloc);
    int64_t slot = slots;
    SlotFit best;
    for (int64_t candidate : free) {
      SlotFit fit = SlotFit::of(bytes, sizes[candidate]);
      if (slot == slots || fit < best)
        std::tie(slot, best) = std::make_pair(candidate, fit);
    }
    if (slot == slots)
      sizes.emplace_back();
    slots = std::max(slots, slot + 1);
    free.erase(slot);
    sizes[slot].push_back(std::move(bytes));
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
  /// The sizes of the buffers each slot has held.
  std::vector<SmallVector<SymbolicBytes, 2>> sizes;
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
