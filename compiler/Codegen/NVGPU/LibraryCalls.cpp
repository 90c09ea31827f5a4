//===- LibraryCalls.cpp - Kernels that run as library routines ------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A GEMM on the GPU is a cuBLASLt call: its heuristics choose a kernel per
// shape that is as fast as the chip allows, which a generated GEMM would
// have to match first. The decision is the kernel config's (the op's
// `library`); this pass carries it into the program, where the package
// writer records the step as a library kernel.
//
//===----------------------------------------------------------------------===//

#include "compiler/Graph/LaunchGrid.h"
#include "compiler/Passes.h"
#include "dialects/attn/AttnOps.h"
#include "dialects/attnrt/AttnRTOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace attnc {
#define GEN_PASS_DEF_ATTNLIBRARYCALLS
#include "compiler/Passes.h.inc"
} // namespace attnc

using namespace mlir;

namespace {

/// The runtime routine of `kernel`'s op, or empty when it is code.
StringRef libraryRoutine(func::FuncOp kernel) {
  for (auto matmul : kernel.getOps<attn::MatmulOp>())
    if (matmul.getLibrary() == "cublaslt")
      return "cublaslt_matmul";
  return {};
}

struct AttnLibraryCallsPass
    : attnc::impl::AttnLibraryCallsBase<AttnLibraryCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection symbols;
    for (func::FuncOp kernel : attnc::kernelFunctions(module)) {
      StringRef routine = libraryRoutine(kernel);
      if (routine.empty())
        continue;
      module.walk([&](attnrt::LaunchOp launch) {
        if (symbols.lookupNearestSymbolFrom(launch, launch.getKernelAttr()) ==
            kernel)
          launch.setLibrary(routine);
      });
      kernel.erase();
    }
  }
};

} // namespace
