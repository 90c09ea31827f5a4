//===- LaunchGrid.cpp - Move a kernel's grid to the launches of it --------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "compiler/Graph/LaunchGrid.h"

#include "dialects/attnrt/AttnRTOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
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

/// The grid record of `grid` (see setLaunchGrids): each extent a product of
/// dims of `kernel`'s arguments.
FailureOr<SmallVector<int64_t>> gridRecord(FunctionOpInterface kernel,
                                           ValueRange grid) {
  SmallVector<int64_t> record{0, static_cast<int64_t>(grid.size())};
  for (Value extent : grid) {
    FailureOr<attnc::GridProduct> product = attnc::matchGridProduct(extent);
    if (failed(product))
      return emitError(extent.getLoc())
             << "the grid of kernel " << kernel.getName()
             << " must be a product of constants and dims of its arguments, "
                "divided by a constant";
    llvm::append_range(
        record, ArrayRef<int64_t>{product->constant, product->divisor,
                                  static_cast<int64_t>(product->dims.size())});
    for (auto [memref, dim] : product->dims) {
      auto arg = dyn_cast<BlockArgument>(memref);
      if (!arg || arg.getOwner() != &kernel.getFunctionBody().front())
        return emitError(extent.getLoc())
               << "the grid of kernel " << kernel.getName()
               << " reads the dims of a value other than its arguments";
      llvm::append_range(record, ArrayRef<int64_t>{arg.getArgNumber(), dim});
    }
  }
  record[0] = static_cast<int64_t>(record.size());
  return record;
}

} // namespace

FailureOr<attnc::GridProduct> attnc::matchGridProduct(Value extent) {
  APInt constant;
  if (matchPattern(extent, m_ConstantInt(&constant)))
    return GridProduct{constant.getSExtValue(), {}, 1};
  if (auto dim = extent.getDefiningOp<memref::DimOp>()) {
    std::optional<int64_t> index = dim.getConstantIndex();
    if (!index)
      return failure();
    return GridProduct{1, {{dim.getSource(), *index}}, 1};
  }
  if (auto mul = extent.getDefiningOp<arith::MulIOp>()) {
    FailureOr<GridProduct> lhs = matchGridProduct(mul.getLhs());
    FailureOr<GridProduct> rhs = matchGridProduct(mul.getRhs());
    if (failed(lhs) || failed(rhs) || lhs->divisor != 1 || rhs->divisor != 1)
      return failure();
    lhs->constant *= rhs->constant;
    llvm::append_range(lhs->dims, rhs->dims);
    return lhs;
  }
  if (auto div = extent.getDefiningOp<arith::CeilDivUIOp>()) {
    FailureOr<GridProduct> product = matchGridProduct(div.getLhs());
    if (failed(product) || product->divisor != 1 ||
        !matchPattern(div.getRhs(), m_ConstantInt(&constant)) ||
        constant.getSExtValue() <= 0)
      return failure();
    product->divisor = constant.getSExtValue();
    return product;
  }
  return failure();
}

void attnc::addI64Table(Operation *symbolTable, Location loc, StringRef name,
                        ArrayRef<int64_t> words, unsigned addressSpace) {
  OpBuilder b(symbolTable->getContext());
  auto i64 = b.getI64Type();
  auto size = static_cast<int64_t>(words.size());
  auto global = LLVM::GlobalOp::create(
      b, loc, LLVM::LLVMArrayType::get(i64, size), /*isConstant=*/true,
      LLVM::Linkage::External, name,
      DenseElementsAttr::get(RankedTensorType::get({size}, i64), words),
      /*alignment=*/8, addressSpace);
  SymbolTable(symbolTable).insert(global);
}

SmallVector<func::FuncOp> attnc::kernelFunctions(ModuleOp module) {
  SmallVector<func::FuncOp> kernels;
  if (auto kernelModule =
          module.lookupSymbol<ModuleOp>(attnrt::kKernelModuleName))
    for (auto kernel : kernelModule.getOps<func::FuncOp>())
      if (kernel->hasAttr(attnrt::kKernelAttr))
        kernels.push_back(kernel);
  return kernels;
}

FailureOr<SmallVector<int64_t>>
attnc::setLaunchGrids(ModuleOp module, FunctionOpInterface kernel,
                      ValueRange grid) {
  FailureOr<SmallVector<Operation *>> computation =
      gridComputation(kernel, grid);
  if (failed(computation))
    return failure();
  FailureOr<SmallVector<int64_t>> record = gridRecord(kernel, grid);
  if (failed(record))
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
  return record;
}
