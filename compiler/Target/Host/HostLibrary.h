//===- HostLibrary.h - Host kernels to a shared library ---------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_TARGET_HOST_HOSTLIBRARY_H
#define ATTNC_COMPILER_TARGET_HOST_HOSTLIBRARY_H

#include "mlir/Support/LLVM.h"

#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace attnc {

struct HostLibraryOptions {
  /// CPU the code is tuned for and may use the instructions of. The default
  /// (x86-64-v3: AVX2 and FMA) runs on every x86 server of the last decade.
  std::string cpu = "x86-64-v3";
};

/// Translates an LLVM-dialect module to LLVM IR and optimizes it (O3) for the
/// host CPU, then prints the IR.
mlir::LogicalResult printHostLLVMIR(mlir::ModuleOp module,
                                    const HostLibraryOptions &options,
                                    llvm::raw_ostream &os);

/// Does the same, emits an object file and links it with the system C
/// compiler driver (`cc -shared`) into a shared library; returns its bytes.
/// Errors are reported as diagnostics on the module.
mlir::FailureOr<std::vector<uint8_t>>
buildHostLibrary(mlir::ModuleOp module, const HostLibraryOptions &options);

} // namespace attnc

#endif // ATTNC_COMPILER_TARGET_HOST_HOSTLIBRARY_H
