//===- MergeIdenticalKernels.cpp - One kernel function per distinct body --===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// attn-form-programs outlines one kernel function per launch, so a model of
// twelve identical layers, and a training step that repeats its forward
// and backward functions, compile the same kernel many times over. Kernel
// functions whose printed form is the same but for their names are one
// kernel: launches of the later ones launch the first, named as before.
//
//===----------------------------------------------------------------------===//

#include "compiler/Graph/LaunchGrid.h"
#include "compiler/Passes.h"
#include "dialects/attnrt/AttnRTOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace attnc {
#define GEN_PASS_DEF_ATTNMERGEIDENTICALKERNELS
#include "compiler/Passes.h.inc"
} // namespace attnc

using namespace mlir;

namespace {

/// `kernel` as text, with its own name left out: equal keys are equal
/// kernels.
std::string keyOf(func::FuncOp kernel) {
  std::string text;
  llvm::raw_string_ostream os(text);
  kernel.print(os, OpPrintingFlags().useLocalScope());
  std::string name = "@" + kernel.getName().str() + "(";
  size_t at = text.find(name);
  if (at != std::string::npos)
    text.replace(at, name.size(), "@(");
  return text;
}

struct AttnMergeIdenticalKernelsPass
    : attnc::impl::AttnMergeIdenticalKernelsBase<
          AttnMergeIdenticalKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::StringMap<func::FuncOp> firstOfKey;
    llvm::DenseMap<StringAttr, func::FuncOp> mergedInto;
    for (func::FuncOp kernel : attnc::kernelFunctions(module)) {
      auto [first, inserted] = firstOfKey.try_emplace(keyOf(kernel), kernel);
      if (!inserted)
        mergedInto[kernel.getNameAttr()] = first->second;
    }
    if (mergedInto.empty())
      return;
    module.walk([&](attnrt::LaunchOp launch) {
      StringAttr name = launch.getKernelAttr().getLeafReference();
      auto found = mergedInto.find(name);
      if (found == mergedInto.end())
        return;
      launch.setStepAttr(name);
      launch.setKernelAttr(SymbolRefAttr::get(
          launch.getKernelAttr().getRootReference(),
          {FlatSymbolRefAttr::get(found->second.getNameAttr())}));
    });
    for (auto &[name, first] : mergedInto)
      SymbolTable::lookupNearestSymbolFrom(first, name)->erase();
  }
};

} // namespace
