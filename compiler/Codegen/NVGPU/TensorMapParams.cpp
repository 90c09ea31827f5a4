//===- TensorMapParams.cpp - Tensor maps as grid-constant parameters ------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "compiler/Passes.h"
#include "dialects/attngpu/AttnGPUOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace attnc {
#define GEN_PASS_DEF_ATTNTENSORMAPPARAMS
#include "compiler/Passes.h.inc"
} // namespace attnc

using namespace mlir;

namespace {

/// The tensor maps are the parameters before the last one (their valid
/// bits), one per entry of the kernel's attngpu::kTensorMapsAttr.
LogicalResult markTensorMaps(LLVM::LLVMFuncOp kernel, ArrayAttr maps) {
  unsigned params = kernel.getNumArguments();
  if (params < maps.size() + 1)
    return kernel.emitError() << "expected " << maps.size()
                              << " tensor map parameters and their valid "
                                 "bits, the kernel has "
                              << params << " parameters";
  MLIRContext *ctx = kernel.getContext();
  Builder b(ctx);
  auto bytes = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8),
                                        attngpu::kTensorMapBytes);
  for (unsigned i = params - 1 - maps.size(); i < params - 1; ++i) {
    if (!isa<LLVM::LLVMPointerType>(kernel.getArgument(i).getType()))
      return kernel.emitError()
             << "expected tensor map parameter " << i << " to be a pointer";
    kernel.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                      TypeAttr::get(bytes));
    kernel.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                      b.getI64IntegerAttr(attngpu::kTensorMapAlignment));
    kernel.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                      b.getUnitAttr());
  }
  return success();
}

struct AttnTensorMapParamsPass
    : attnc::impl::AttnTensorMapParamsBase<AttnTensorMapParamsPass> {
  using Base::Base;

  void runOnOperation() override {
    for (auto kernel : getOperation().getOps<LLVM::LLVMFuncOp>()) {
      auto maps = kernel->getAttrOfType<ArrayAttr>(attngpu::kTensorMapsAttr);
      if (maps && failed(markTensorMaps(kernel, maps)))
        return signalPassFailure();
    }
  }
};

} // namespace
