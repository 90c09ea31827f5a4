//===- HostLibrary.cpp - Host kernels to a shared library -----------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "compiler/Target/Host/HostLibrary.h"

#include "compiler/Target/TempFile.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;

namespace {

/// The host kernels as optimized LLVM IR, with the target machine that
/// emits them.
struct HostModule {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::TargetMachine> machine;
  std::unique_ptr<llvm::Module> ir;
};

/// Translates and optimizes `module` for the host into `host.ir`; null after
/// a diagnostic.
std::unique_ptr<HostModule>
optimizeForHost(ModuleOp module, const attnc::HostLibraryOptions &options) {
  auto host = std::make_unique<HostModule>();
  std::unique_ptr<llvm::TargetMachine> &machine = host->machine;
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  llvm::Triple triple(llvm::sys::getProcessTriple());
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) {
    module.emitError() << "no LLVM target for the host (" << triple.str()
                       << "): " << error;
    return nullptr;
  }
  // The default CPU names an x86 level; elsewhere tune for the generic CPU.
  std::string cpu = triple.isX86() ? options.cpu : "generic";
  machine.reset(target->createTargetMachine(
      triple, cpu, "", llvm::TargetOptions(), llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!machine) {
    module.emitError() << "cannot create an LLVM target machine for CPU '"
                       << cpu << "'";
    return nullptr;
  }

  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  module.getContext()->appendDialectRegistry(registry);
  std::unique_ptr<llvm::Module> &llvmModule = host->ir;
  llvmModule = translateModuleToLLVMIR(module, host->context);
  if (!llvmModule) {
    module.emitError() << "cannot translate the host kernels to LLVM IR";
    return nullptr;
  }
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(machine->createDataLayout());

  auto optimize =
      makeOptimizingTransformer(/*optLevel=*/3, /*sizeLevel=*/0, machine.get());
  if (llvm::Error err = optimize(llvmModule.get())) {
    module.emitError() << "LLVM optimization failed: "
                       << llvm::toString(std::move(err));
    return nullptr;
  }
  return host;
}

} // namespace

LogicalResult attnc::printHostLLVMIR(ModuleOp module,
                                     const HostLibraryOptions &options,
                                     llvm::raw_ostream &os) {
  std::unique_ptr<HostModule> host = optimizeForHost(module, options);
  if (!host)
    return failure();
  host->ir->print(os, nullptr);
  return success();
}

FailureOr<std::vector<uint8_t>>
attnc::buildHostLibrary(ModuleOp module, const HostLibraryOptions &options) {
  std::unique_ptr<HostModule> host = optimizeForHost(module, options);
  if (!host)
    return failure();

  attnc::TempFile object, library, linkerLog;
  if (failed(object.create(module, "o")) ||
      failed(library.create(module, "so")) ||
      failed(linkerLog.create(module, "log")))
    return failure();
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(object.path, ec);
    if (ec)
      return module.emitError()
             << "cannot write " << object.path << ": " << ec.message();
    llvm::legacy::PassManager codegen;
    if (host->machine->addPassesToEmitFile(codegen, os, nullptr,
                                           llvm::CodeGenFileType::ObjectFile))
      return module.emitError() << "the host target cannot emit object files";
    codegen.run(*host->ir);
  }

  // Link with the C compiler driver: it knows where libm and the C runtime
  // the kernels call into (malloc, free, math functions) live.
  llvm::ErrorOr<std::string> linker = llvm::sys::findProgramByName("cc");
  if (!linker)
    return module.emitError()
           << "cannot find the system C compiler driver `cc` to link host "
              "kernels (install gcc or clang)";
  SmallVector<StringRef> args = {*linker,      "-shared",   "-o",
                                 library.path, object.path, "-lm"};
  std::optional<StringRef> redirects[] = {std::nullopt, linkerLog.path.str(),
                                          linkerLog.path.str()};
  std::string error;
  int rc = llvm::sys::ExecuteAndWait(*linker, args, std::nullopt, redirects,
                                     /*SecondsToWait=*/60, 0, &error);
  if (rc != 0) {
    auto log = llvm::MemoryBuffer::getFile(linkerLog.path);
    return module.emitError()
           << "linking the host kernels failed"
           << (error.empty() ? "" : ": " + error)
           << (log ? "\n" + (*log)->getBuffer().str() : std::string());
  }
  auto bytes = llvm::MemoryBuffer::getFile(library.path, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
  if (!bytes)
    return module.emitError() << "cannot read the linked host library: "
                              << bytes.getError().message();
  StringRef data = (*bytes)->getBuffer();
  return std::vector<uint8_t>(data.begin(), data.end());
}
