//===- LaunchGrid.h - Move a kernel's grid to the launches of it -*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_GRAPH_LAUNCHGRID_H
#define ATTNC_COMPILER_GRAPH_LAUNCHGRID_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace attnc {

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
