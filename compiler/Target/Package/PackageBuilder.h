//===- PackageBuilder.h - Programs and kernels for the manifest -*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The package writer reads its metadata from the IR, in two steps: the
// programs and what their kernels compute right after program formation
// (while kernels still hold their attn ops), and each kernel's launch (grid,
// entry, block, shared memory) once a target lowering has mapped it.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_TARGET_PACKAGE_PACKAGEBUILDER_H
#define ATTNC_COMPILER_TARGET_PACKAGE_PACKAGEBUILDER_H

#include "attnc/package/Package.h"
#include "mlir/Support/LLVM.h"

#include <vector>

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace attnc {

/// Describes every program of `module` (after attn-form-programs,
/// attn-plan-buffers and attn-kernel-config): signatures with symbolic
/// dims, buffers and slots, steps, the ops the function computes for the
/// fp64 reference, and for each step's kernel its name and tile
/// configuration (the rest of the kernel comes with describeLaunches).
mlir::FailureOr<std::vector<pkg::Function>>
describePrograms(mlir::ModuleOp module);

/// Completes the kernels of `functions` for `target` (code in blob `blob`)
/// from `module` after the target's lowering: each launch's grid in the
/// functions' symbols, the entry point, and on GPU targets the block size
/// and dynamic shared memory.
mlir::LogicalResult describeLaunches(mlir::ModuleOp module,
                                     llvm::StringRef target,
                                     llvm::StringRef blob,
                                     std::vector<pkg::Function> &functions);

} // namespace attnc

#endif // ATTNC_COMPILER_TARGET_PACKAGE_PACKAGEBUILDER_H
