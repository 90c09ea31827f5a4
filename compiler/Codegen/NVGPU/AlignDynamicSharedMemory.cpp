//===- AlignDynamicSharedMemory.cpp - Align dynamic shared memory ---------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "compiler/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace attnc {
#define GEN_PASS_DEF_ATTNALIGNDYNAMICSHAREDMEMORY
#include "compiler/Passes.h.inc"
} // namespace attnc

using namespace mlir;

namespace {

/// The prefix convert-gpu-to-nvvm gives the dynamic shared memory globals.
constexpr llvm::StringLiteral kDynamicSharedPrefix = "__dynamic_shmem__";

struct AttnAlignDynamicSharedMemoryPass
    : attnc::impl::AttnAlignDynamicSharedMemoryBase<
          AttnAlignDynamicSharedMemoryPass> {
  using Base::Base;

  void runOnOperation() override {
    if (alignment <= 0 || !llvm::isPowerOf2_64(alignment)) {
      getOperation().emitError()
          << "alignment must be a power of two, got "
          << static_cast<int64_t>(alignment);
      return signalPassFailure();
    }
    for (auto global : getOperation().getOps<LLVM::GlobalOp>()) {
      if (!global.getSymName().starts_with(kDynamicSharedPrefix) ||
          global.getAddrSpace() != NVVM::NVVMMemorySpace::Shared)
        continue;
      // External: the symbol names the block's dynamic shared memory
      // (`.extern .shared`), which ptxas places at the requested alignment;
      // an internal zero-length global becomes a local variable instead.
      global.setLinkage(LLVM::Linkage::External);
      global.setAlignment(alignment);
    }
  }
};

} // namespace
