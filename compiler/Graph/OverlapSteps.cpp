//===- OverlapSteps.cpp - Independent launches side by side ---------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A kernel's last wave leaves SMs idle until its slowest blocks finish; a
// kernel that does not depend on it can fill them. Program order already
// puts such kernels side by side (attention's key/value and query
// gradients, a weight's gradient next to its input's), so pairs of
// neighbours are marked, not reordered. What a launch touches follows from
// its kernel function: destination-passing style (FormPrograms) writes a
// result into an argument by bufferization.materialize_in_destination, and
// every argument may be read. A pair never holds more memory than its
// second launch alone (no buffer is freed between them).
//
//===----------------------------------------------------------------------===//

#include "compiler/Passes.h"
#include "dialects/attnrt/AttnRTOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <limits>

namespace attnc {
#define GEN_PASS_DEF_ATTNOVERLAPSTEPS
#include "compiler/Passes.h.inc"
} // namespace attnc

using namespace mlir;

namespace {

/// The rows [begin, end) of its storage that a launch argument covers: a
/// view's rows of its buffer, else (a heads view too) all of them.
struct StorageRows {
  Value storage;
  int64_t begin = 0, end = std::numeric_limits<int64_t>::max();

  static StorageRows of(Value value) {
    auto view = value.getDefiningOp<attnrt::ViewOp>();
    if (!view)
      return {value};
    if (view.getHeads())
      return {view.getSource()};
    int64_t begin = static_cast<int64_t>(view.getBegin());
    return {view.getSource(), begin, begin + view.getType().getDimSize(0)};
  }

  bool overlaps(const StorageRows &other) const {
    return storage == other.storage && begin < other.end && other.begin < end;
  }
};

/// The rows a launch may read (all its arguments) and those it writes.
struct Access {
  SmallVector<StorageRows> touched, written;

  /// Whether `other` leaves alone everything this writes, and the reverse.
  bool independentOf(const Access &other) const {
    auto clash = [](const Access &writer, const Access &toucher) {
      for (const StorageRows &w : writer.written)
        for (const StorageRows &t : toucher.touched)
          if (w.overlaps(t))
            return true;
      return false;
    };
    return !clash(*this, other) && !clash(other, *this);
  }
};

/// What `launch` touches, or nothing where its kernel function is not
/// there to say what it writes.
std::optional<Access> accessOf(attnrt::LaunchOp launch,
                               SymbolTableCollection &symbols) {
  auto kernel = dyn_cast_or_null<func::FuncOp>(
      symbols.lookupNearestSymbolFrom(launch, launch.getKernelAttr()));
  if (!kernel || kernel.isExternal())
    return std::nullopt;
  llvm::SmallDenseSet<unsigned> writtenArgs;
  kernel.walk([&](bufferization::MaterializeInDestinationOp write) {
    if (auto arg = dyn_cast<BlockArgument>(write.getDest()))
      writtenArgs.insert(arg.getArgNumber());
  });
  Access access;
  for (auto [i, arg] : llvm::enumerate(launch.getArgs())) {
    access.touched.push_back(StorageRows::of(arg));
    if (writtenArgs.contains(i))
      access.written.push_back(access.touched.back());
  }
  return access;
}

/// Marks the launches of `program` that may run beside the one before.
/// Only where no buffer is freed between the two: then every buffer live at
/// the first is live at the second anyway, and the pair costs no memory.
void overlapProgram(func::FuncOp program, SymbolTableCollection &symbols) {
  std::optional<Access> previous;
  bool previousPaired = false, freedSince = false;
  for (Operation &op : program.getBody().front()) {
    freedSince |= isa<attnrt::DeallocOp>(op);
    auto launch = dyn_cast<attnrt::LaunchOp>(op);
    if (!launch)
      continue;
    std::optional<Access> access = accessOf(launch, symbols);
    bool pair = previous && access && !previousPaired && !freedSince &&
                access->independentOf(*previous);
    launch.setConcurrent(pair);
    previous = std::move(access);
    previousPaired = pair;
    freedSince = false;
  }
}

struct AttnOverlapStepsPass
    : attnc::impl::AttnOverlapStepsBase<AttnOverlapStepsPass> {
  void runOnOperation() override {
    SymbolTableCollection symbols;
    for (auto program : getOperation().getOps<func::FuncOp>())
      if (program->hasAttr(attnrt::kNumInputsAttr))
        overlapProgram(program, symbols);
  }
};

} // namespace
