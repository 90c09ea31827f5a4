//===- HostEntryPoints.cpp - Packed entry points of host kernels ----------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "compiler/Graph/LaunchGrid.h"
#include "compiler/Passes.h"
#include "dialects/attnrt/AttnRTOps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace attnc {
#define GEN_PASS_DEF_ATTNHOSTENTRYPOINTS
#include "compiler/Passes.h.inc"
} // namespace attnc

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kCInterfacePrefix = "_mlir_ciface_";

/// The rank of each memref parameter of `kernel` in MLIR's expanded form
/// (ptr, ptr, offset, sizes[rank], strides[rank]), before the block range.
FailureOr<SmallVector<int64_t>> expandedRanks(LLVM::LLVMFuncOp kernel) {
  ArrayRef<Type> params = kernel.getFunctionType().getParams();
  params = params.drop_back(std::min<size_t>(2, params.size()));
  SmallVector<int64_t> ranks;
  while (!params.empty()) {
    if (params.size() < 2 || !isa<LLVM::LLVMPointerType>(params[0]) ||
        !isa<LLVM::LLVMPointerType>(params[1]))
      return failure();
    params = params.drop_front(2);
    size_t words = 0;
    while (words < params.size() && params[words].isInteger(64))
      ++words;
    if (words % 2 == 0)
      return failure();
    ranks.push_back(static_cast<int64_t>(words / 2));
    params = params.drop_front(words);
  }
  return ranks;
}

/// Adds the constant `<kernel>_entry_arg_ranks` = {n, ranks...}: what the
/// entry point expects behind each of its n descriptor pointers.
LogicalResult addArgRanks(ModuleOp module, LLVM::LLVMFuncOp kernel,
                          size_t numArgs) {
  FailureOr<SmallVector<int64_t>> ranks = expandedRanks(kernel);
  if (failed(ranks) || ranks->size() != numArgs)
    return kernel.emitError() << "kernel parameters are not " << numArgs
                              << " expanded memrefs and the block range";
  SmallVector<int64_t> record{static_cast<int64_t>(numArgs)};
  llvm::append_range(record, *ranks);
  attnc::addI64Table(module, kernel.getLoc(),
                     attnrt::hostArgRanksName(kernel.getName()), record);
  return success();
}

/// Adds `void <kernel>_entry(void **args, i64 begin, i64 end)` calling
/// `_mlir_ciface_<kernel>(args[0], ..., args[n - 1], begin, end)`.
LogicalResult addEntryPoint(ModuleOp module, LLVM::LLVMFuncOp kernel) {
  std::string wrapperName = (kCInterfacePrefix + kernel.getName()).str();
  auto wrapper = module.lookupSymbol<LLVM::LLVMFuncOp>(wrapperName);
  if (!wrapper)
    return kernel.emitError()
           << "kernel has no C interface wrapper '" << wrapperName << "'";
  ArrayRef<Type> params = wrapper.getFunctionType().getParams();
  MLIRContext *ctx = module.getContext();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  auto i64 = IntegerType::get(ctx, 64);
  if (params.size() < 2 || params.take_back(2) != ArrayRef<Type>{i64, i64} ||
      llvm::any_of(params.drop_back(2), [&](Type t) { return t != ptrType; }))
    return kernel.emitError()
           << "kernel C interface must take descriptor pointers followed by "
              "the block range (i64, i64)";

  Location loc = kernel.getLoc();
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  auto entryType = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                               {ptrType, i64, i64});
  auto entry = LLVM::LLVMFuncOp::create(
      b, loc, attnrt::hostEntryName(kernel.getName()), entryType);
  Block *body = entry.addEntryBlock(b);
  b.setInsertionPointToStart(body);
  SmallVector<Value> args;
  for (int64_t i = 0, e = params.size() - 2; i < e; ++i) {
    Value slot =
        LLVM::GEPOp::create(b, loc, ptrType, ptrType, body->getArgument(0),
                            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
    args.push_back(LLVM::LoadOp::create(b, loc, ptrType, slot));
  }
  args.append({body->getArgument(1), body->getArgument(2)});
  LLVM::CallOp::create(b, loc, wrapper, args);
  LLVM::ReturnOp::create(b, loc, ValueRange{});
  // Only the entry and its ranks are looked up by the runtime; the kernel
  // and its wrapper stay out of the shared object's symbol table.
  auto internal = LLVM::LinkageAttr::get(ctx, LLVM::Linkage::Internal);
  kernel.setLinkageAttr(internal);
  wrapper.setLinkageAttr(internal);
  return addArgRanks(module, kernel, params.size() - 2);
}

struct AttnHostEntryPointsPass
    : attnc::impl::AttnHostEntryPointsBase<AttnHostEntryPointsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<LLVM::LLVMFuncOp> kernels;
    // func-to-llvm copies the kernel's attributes onto its C wrapper too.
    for (auto fn : module.getOps<LLVM::LLVMFuncOp>())
      if (fn->hasAttr(attnrt::kKernelAttr) &&
          !fn.getName().starts_with(kCInterfacePrefix))
        kernels.push_back(fn);
    for (LLVM::LLVMFuncOp kernel : kernels)
      if (failed(addEntryPoint(module, kernel)))
        return signalPassFailure();
  }
};

} // namespace
