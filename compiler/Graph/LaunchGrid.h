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

namespace attnc {

/// The kernel functions of `module`'s kernel module (@attnc_kernels), in
/// order; none when it has no such module.
llvm::SmallVector<mlir::func::FuncOp> kernelFunctions(mlir::ModuleOp module);

/// Sets the grid of every attnrt.launch of `kernel` in `module` to `grid`
/// (x, y, z; values of the kernel function computed from its arguments by
/// side-effect free ops without regions), recomputed before each launch
/// from the launch's own buffers. Fails with a diagnostic when the grid
/// depends on anything else.
mlir::LogicalResult setLaunchGrids(mlir::ModuleOp module,
                                   mlir::FunctionOpInterface kernel,
                                   mlir::ValueRange grid);

} // namespace attnc

#endif // ATTNC_COMPILER_GRAPH_LAUNCHGRID_H
