//===- LaunchGrid.cpp - Move a kernel's grid to the launches of it --------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "compiler/Graph/LaunchGrid.h"

#include "dialects/attnrt/AttnRTOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace {

/// The ops that compute `grid` from the kernel's arguments, in order.
FailureOr<SmallVector<Operation *>>
gridComputation(FunctionOpInterface kernel, ValueRange grid) {
  llvm::SetVector<Operation *> ops;
  SmallVector<Value> worklist(grid.begin(), grid.end());
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (arg.getOwner() == &kernel.getFunctionBody().front())
        continue;
      return emitError(value.getLoc())
             << "the grid of kernel " << kernel.getName()
             << " depends on a value other than its arguments";
    }
    Operation *op = value.getDefiningOp();
    if (op->getNumRegions() != 0 || !isMemoryEffectFree(op))
      return op->emitError() << "the grid of kernel " << kernel.getName()
                             << " must be computed by ops without effects";
    if (ops.insert(op))
      llvm::append_range(worklist, op->getOperands());
  }
  SmallVector<Operation *> ordered = ops.takeVector();
  llvm::sort(ordered, [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  });
  return ordered;
}

/// The highest kernel argument `grid` and `computation` read, or -1.
int64_t lastArgumentRead(ValueRange grid, ArrayRef<Operation *> computation) {
  int64_t last = -1;
  auto note = [&](Value value) {
    if (auto arg = dyn_cast<BlockArgument>(value))
      last = std::max<int64_t>(last, arg.getArgNumber());
  };
  llvm::for_each(grid, note);
  for (Operation *op : computation)
    llvm::for_each(op->getOperands(), note);
  return last;
}

} // namespace

SmallVector<func::FuncOp> attnc::kernelFunctions(ModuleOp module) {
  SmallVector<func::FuncOp> kernels;
  if (auto kernelModule =
          module.lookupSymbol<ModuleOp>(attnrt::kKernelModuleName))
    for (auto kernel : kernelModule.getOps<func::FuncOp>())
      if (kernel->hasAttr(attnrt::kKernelAttr))
        kernels.push_back(kernel);
  return kernels;
}

LogicalResult attnc::setLaunchGrids(ModuleOp module,
                                    FunctionOpInterface kernel,
                                    ValueRange grid) {
  FailureOr<SmallVector<Operation *>> computation =
      gridComputation(kernel, grid);
  if (failed(computation))
    return failure();
  int64_t lastRead = lastArgumentRead(grid, *computation);
  SymbolTableCollection symbols;
  // Launches live in the programs, the module's own functions; the kernels'
  // bodies need no walk.
  auto setGrid = [&](attnrt::LaunchOp launch) {
    if (symbols.lookupNearestSymbolFrom(launch, launch.getKernelAttr()) !=
        kernel.getOperation())
      return WalkResult::advance();
    if (lastRead >= static_cast<int64_t>(launch.getArgs().size())) {
      launch.emitError() << "the grid of kernel " << kernel.getName()
                         << " reads its argument #" << lastRead
                         << ", which this launch does not pass";
      return WalkResult::interrupt();
    }
    IRMapping mapping;
    mapping.map(kernel.getArguments().take_front(launch.getArgs().size()),
                launch.getArgs());
    OpBuilder b(launch);
    for (Operation *op : *computation)
      b.clone(*op, mapping);
    SmallVector<Value> values;
    for (Value extent : grid)
      values.push_back(mapping.lookup(extent));
    launch.getGridMutable().assign(values);
    return WalkResult::advance();
  };
  for (auto program : module.getOps<func::FuncOp>())
    if (program.walk(setGrid).wasInterrupted())
      return failure();
  return success();
}
