//===- LaunchGrid.h - Kernels of a module and the grids of their launches -===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_GRAPH_LAUNCHGRID_H
#define ATTNC_COMPILER_GRAPH_LAUNCHGRID_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <utility>

namespace attnc {

/// The kernel functions of `module`'s kernel module (@attnc_kernels), in
/// order; none when it has no such module.
llvm::SmallVector<mlir::func::FuncOp> kernelFunctions(mlir::ModuleOp module);

/// A grid extent in the form packages and grid records write it:
/// ceil(constant * (product of the dims) / divisor).
struct GridProduct {
  int64_t constant = 1;
  /// (memref, dim index) of each memref.dim factor.
  llvm::SmallVector<std::pair<mlir::Value, int64_t>> dims;
  int64_t divisor = 1;
};

/// `extent` as a GridProduct: integer constants and memref.dims with a
/// constant index, multiplied, then divided (rounding up) by a positive
/// constant. Fails without a diagnostic on anything else.
mlir::FailureOr<GridProduct> matchGridProduct(mlir::Value extent);

/// Sets the grid of every attnrt.launch of `kernel` in `module` to `grid`
/// (x, y, z; values of the kernel function computed from its arguments by
/// side-effect free ops without regions), recomputed before each launch
/// from the launch's own buffers. Returns the grid record of the kernel's
/// code (pkg::Kernel): {words, extents, then per extent: constant, divisor,
/// factor count, (argument, dim) per factor}. Fails with a diagnostic when
/// the grid depends on anything else or is not a GridProduct of the
/// kernel's arguments.
mlir::FailureOr<llvm::SmallVector<int64_t>>
setLaunchGrids(mlir::ModuleOp module, mlir::FunctionOpInterface kernel,
               mlir::ValueRange grid);

/// Adds `words` as the constant i64 array `name` to `symbolTable`, in LLVM
/// address space `addressSpace`, with external linkage: the records the
/// runtime reads from a kernel's code (grid records, host argument ranks).
void addI64Table(mlir::Operation *symbolTable, mlir::Location loc,
                 llvm::StringRef name, llvm::ArrayRef<int64_t> words,
                 unsigned addressSpace = 0);

} // namespace attnc

#endif // ATTNC_COMPILER_GRAPH_LAUNCHGRID_H
