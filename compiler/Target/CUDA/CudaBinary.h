//===- CudaBinary.h - GPU kernels to PTX and cubin --------------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_TARGET_CUDA_CUDABINARY_H
#define ATTNC_COMPILER_TARGET_CUDA_CUDABINARY_H

#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace attnc {

/// The CUDA toolkit: $CUDA_HOME, else $CUDA_PATH, else /usr/local/cuda.
/// libdevice (math functions) and ptxas come from it.
std::string cudaToolkitPath();

/// PTX of the module's NVVM-level gpu.module (after attnc-gpu-to-nvvm),
/// produced by LLVM's NVPTX backend with libdevice linked.
mlir::FailureOr<std::string> emitPTX(mlir::ModuleOp module);

/// A cubin and what ptxas reported about each kernel.
struct CudaAssembly {
  std::vector<uint8_t> cubin;
  /// Kernel name -> "registers", "stack_bytes", "spill_store_bytes",
  /// "spill_load_bytes", "wgmma_serialization_warnings" (parsePtxasReport).
  std::map<std::string, std::map<std::string, int64_t>> resources;
  std::string log; // ptxas -v output, verbatim
};

/// Assembles `ptx` for `chip` with ptxas -O3 -v. Errors (including ptxas's
/// own messages) are diagnostics on `module`.
mlir::FailureOr<CudaAssembly>
assemblePTX(mlir::ModuleOp module, llvm::StringRef ptx, llvm::StringRef chip);

} // namespace attnc

#endif // ATTNC_COMPILER_TARGET_CUDA_CUDABINARY_H
