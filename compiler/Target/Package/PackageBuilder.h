//===- PackageBuilder.h - Describe compiled functions for a package -*- C++
//-*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_TARGET_PACKAGE_PACKAGEBUILDER_H
#define ATTNC_COMPILER_TARGET_PACKAGE_PACKAGEBUILDER_H

#include "lib/package/Package.h"
#include "mlir/Support/LLVM.h"

#include <vector>

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace attnc {

/// Describes every public function of `module` for the package manifest:
/// tensor signatures with symbolic dims (B, Nq, Nk), one kernel for `target`
/// whose code is in blob `blob`, its launch grid and tile configuration, and
/// the attention semantics the fp64 reference checks. Reads the module at
/// the attn level, after tile selection and before tiling. A function whose
/// regions cannot be described for the reference gets a warning and no
/// semantics; unsupported functions are errors.
mlir::FailureOr<std::vector<pkg::Function>>
describePackageFunctions(mlir::ModuleOp module, llvm::StringRef target,
                         llvm::StringRef blob);

} // namespace attnc

#endif // ATTNC_COMPILER_TARGET_PACKAGE_PACKAGEBUILDER_H
