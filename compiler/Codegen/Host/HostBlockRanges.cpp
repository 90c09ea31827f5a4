//===- HostBlockRanges.cpp - Host kernels over a range of blocks ----------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The host runtime splits a kernel's grid into ranges of linear block ids
// and calls the kernel on each range from a thread of its pool (the host ABI
// of lib/include/attnc/package/Package.h). This pass gives each kernel function
// that form: (buffers..., block_begin, block_end), its grid's forall becoming a
// loop over the range with the ids delinearized, x fastest.
//
//===----------------------------------------------------------------------===//

#include "compiler/Graph/LaunchGrid.h"
#include "compiler/Passes.h"
#include "dialects/attnrt/AttnRTOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace attnc {
#define GEN_PASS_DEF_ATTNHOSTBLOCKRANGES
#include "compiler/Passes.h.inc"
} // namespace attnc

using namespace mlir;

namespace {

/// The grid's forall: the only op of the kernel body besides values it
/// reads and the return.
FailureOr<scf::ForallOp> gridOf(func::FuncOp kernel) {
  auto foralls = kernel.getBody().getOps<scf::ForallOp>();
  if (std::distance(foralls.begin(), foralls.end()) != 1)
    return kernel.emitError()
           << "host kernel " << kernel.getName()
           << " must hold exactly one scf.forall over its grid";
  scf::ForallOp forall = *foralls.begin();
  if (forall.getRank() > 3 || !forall.getOutputs().empty() ||
      !forall.isNormalized())
    return forall.emitError() << "the grid of host kernel " << kernel.getName()
                              << " must be a normalized forall of up to 3 "
                                 "dims without outputs";
  return forall;
}

/// Allocations at the top of a block that do not depend on the block move
/// before the block loop, their deallocations after it.
void hoistBlockAllocations(scf::ForOp loop) {
  Block *body = loop.getBody();
  for (auto alloc : llvm::make_early_inc_range(body->getOps<memref::AllocOp>())) {
    if (!alloc.getDynamicSizes().empty() || !alloc.getSymbolOperands().empty())
      continue;
    SmallVector<memref::DeallocOp> deallocs;
    for (Operation *user : alloc->getUsers())
      if (auto dealloc = dyn_cast<memref::DeallocOp>(user);
          dealloc && dealloc->getBlock() == body)
        deallocs.push_back(dealloc);
    if (deallocs.size() != 1)
      continue;
    alloc->moveBefore(loop);
    deallocs.front()->moveAfter(loop);
  }
}

/// Replaces the forall by a loop over the linear block range.
void rangeLoop(func::FuncOp kernel, scf::ForallOp forall, Value begin,
               Value end, ArrayRef<Value> grid) {
  OpBuilder b(forall);
  Location loc = forall.getLoc();
  auto loop = scf::ForOp::create(b, loc, begin, end,
                                 arith::ConstantIndexOp::create(b, loc, 1));
  b.setInsertionPointToStart(loop.getBody());
  // Ids are linear with x fastest.
  Value rest = loop.getInductionVar();
  IRMapping mapping;
  for (auto [dim, iv] : llvm::enumerate(forall.getInductionVars())) {
    bool last = dim + 1 == grid.size();
    mapping.map(iv, last ? rest
                         : arith::RemUIOp::create(b, loc, rest, grid[dim])
                               .getResult());
    if (!last)
      rest = arith::DivUIOp::create(b, loc, rest, grid[dim]);
  }
  for (Operation &op : forall.getBody()->without_terminator())
    b.clone(op, mapping);
  forall.erase();
  hoistBlockAllocations(loop);
}

LogicalResult lowerKernel(ModuleOp module, func::FuncOp kernel) {
  FailureOr<scf::ForallOp> forall = gridOf(kernel);
  if (failed(forall))
    return failure();
  OpBuilder b(*forall);
  SmallVector<Value> grid = getValueOrCreateConstantIndexOp(
      b, forall->getLoc(), forall->getMixedUpperBound());
  FailureOr<SmallVector<int64_t>> record =
      attnc::setLaunchGrids(module, kernel, grid);
  if (failed(record))
    return failure();
  attnc::addI64Table(
      kernel->getParentOp(), kernel.getLoc(),
      attnrt::gridRecordName(attnrt::hostEntryName(kernel.getName())), *record);
  Block &body = kernel.getBody().front();
  IndexType index = b.getIndexType();
  Value begin = body.addArgument(index, kernel.getLoc());
  Value end = body.addArgument(index, kernel.getLoc());
  SmallVector<Type> inputs(kernel.getArgumentTypes());
  inputs.append({index, index});
  kernel.setType(FunctionType::get(kernel.getContext(), inputs, {}));
  rangeLoop(kernel, *forall, begin, end, grid);
  // func-to-llvm gives the kernel the descriptor-pointer wrapper that its
  // packed entry point calls (attn-host-entry-points).
  kernel->setAttr("llvm.emit_c_interface", b.getUnitAttr());
  return success();
}

struct AttnHostBlockRangesPass
    : attnc::impl::AttnHostBlockRangesBase<AttnHostBlockRangesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (func::FuncOp kernel : attnc::kernelFunctions(module))
      if (failed(lowerKernel(module, kernel)))
        return signalPassFailure();
  }
};

} // namespace
