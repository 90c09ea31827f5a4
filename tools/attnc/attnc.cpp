//===- attnc.cpp - The attnc compiler driver ------------------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// attnc INPUT.mlir -o OUTPUT [--target=host|sm_90a]
//       [--emit=package|mlir|tiled|llvm|ptx|cubin] [--explain]
//
// Every failure is a located diagnostic (or `attnc: error: ...` for I/O) and
// exit code 1; the output file is written only once everything succeeded.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/AttnToTiled/AttnToTiled.h"
#include "compiler/Pipelines/Pipelines.h"
#include "compiler/Target/CUDA/CudaBinary.h"
#include "compiler/Target/Host/HostLibrary.h"
#include "compiler/Target/Package/PackageBuilder.h"
#include "lib/package/Package.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
namespace pkg = attnc::pkg;

namespace {

enum class Emit { Package, Mlir, Tiled, Llvm, Ptx, Cubin };
enum class Target { Host, Sm90a };

llvm::cl::OptionCategory attncCategory("attnc options");

llvm::cl::opt<std::string>
    inputPath(llvm::cl::Positional,
              llvm::cl::desc("<input .mlir, or - for stdin>"),
              llvm::cl::init("-"), llvm::cl::cat(attncCategory));

llvm::cl::opt<std::string>
    outputPath("o", llvm::cl::desc("Output file (- for stdout)"),
               llvm::cl::value_desc("path"), llvm::cl::init("-"),
               llvm::cl::cat(attncCategory));

llvm::cl::opt<Target>
    target("target", llvm::cl::desc("Code generation target"),
           llvm::cl::values(clEnumValN(Target::Host, "host", "the host CPU"),
                            clEnumValN(Target::Sm90a, "sm_90a",
                                       "NVIDIA Hopper (H100, H200)")),
           llvm::cl::init(Target::Host), llvm::cl::cat(attncCategory));

enum class TensorCores { Auto, MmaSync };

llvm::cl::opt<TensorCores> tensorCores(
    "tensor-cores",
    llvm::cl::desc("sm_90a tensor-core kernel for 16-bit inputs"),
    llvm::cl::values(
        clEnumValN(TensorCores::Auto, "auto",
                   "wgmma for head dims that are multiples of 64 up to 256, "
                   "mma.sync for other multiples of 16 (the default)"),
        clEnumValN(TensorCores::MmaSync, "mma-sync",
                   "mma.sync wherever tensor cores apply")),
    llvm::cl::init(TensorCores::Auto), llvm::cl::cat(attncCategory));

llvm::cl::opt<Emit> emit(
    "emit", llvm::cl::desc("What to write"),
    llvm::cl::values(
        clEnumValN(Emit::Package, "package",
                   "a package the runtime loads (.attnpkg, the default)"),
        clEnumValN(Emit::Mlir, "mlir",
                   "the verified, canonicalized attn module"),
        clEnumValN(Emit::Tiled, "tiled", "the tiled kernels (scf/memref)"),
        clEnumValN(Emit::Llvm, "llvm", "the optimized LLVM IR of host kernels"),
        clEnumValN(Emit::Ptx, "ptx", "the PTX of GPU kernels"),
        clEnumValN(Emit::Cubin, "cubin", "the cubin of GPU kernels")),
    llvm::cl::init(Emit::Package), llvm::cl::cat(attncCategory));

llvm::cl::opt<bool> explain(
    "explain",
    llvm::cl::desc("Print each GPU kernel's tiles, launch and resource report "
                   "(registers, spills, wgmma serialization warnings)"),
    llvm::cl::init(false), llvm::cl::cat(attncCategory));

llvm::cl::opt<std::string>
    hostCpu("host-cpu", llvm::cl::desc("CPU host kernels are compiled for"),
            llvm::cl::init(attnc::HostLibraryOptions().cpu),
            llvm::cl::cat(attncCategory));

int reportIoError(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "attnc") << message << "\n";
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "attnc " << ATTNC_VERSION << " (LLVM/MLIR " << LLVM_VERSION_STRING
       << ")\n";
  });
  llvm::cl::HideUnrelatedOptions(attncCategory);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "attnc: compile attn dialect modules into attention kernels\n");

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputPath, &errorMessage);
  if (!input)
    return reportIoError(errorMessage);
  // MLIR's bytecode reader is not hardened against malformed input; attnc
  // reads models as text.
  if (input->getBuffer().starts_with("ML\xefR"))
    return reportIoError("'" + inputPath +
                         "' is MLIR bytecode; attnc reads textual MLIR");

  DialectRegistry registry;
  attnc::registerAttncDialects(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  auto runPipeline = [&](auto build) {
    PassManager pm(&context);
    build(pm);
    return pm.run(*module);
  };
  if (failed(runPipeline(
          [](OpPassManager &pm) { attnc::buildFrontendPipeline(pm); })))
    return 1;

  bool host = target == Target::Host;
  std::string targetName = host ? "host" : "sm_90a";
  if (host && (emit == Emit::Ptx || emit == Emit::Cubin))
    return reportIoError("--emit=ptx and --emit=cubin need a GPU target "
                         "(--target=sm_90a)");
  if (!host && emit == Emit::Llvm)
    return reportIoError("--emit=llvm shows host kernels; use --emit=ptx for "
                         "--target=" +
                         targetName);

  std::vector<pkg::Function> functions;
  if (emit != Emit::Mlir) {
    // Code generation handles kernel-form functions only; say so up front
    // rather than failing later in LLVM translation.
    bool supported = true;
    for (auto func : module->getOps<func::FuncOp>())
      supported &= succeeded(attnc::matchAttentionKernel(func));
    if (!supported)
      return 1;
    if (failed(runPipeline([&](OpPassManager &pm) {
          attnc::buildSelectTilesPipeline(
              pm, targetName,
              tensorCores == TensorCores::MmaSync ? "mma-sync" : "auto");
        })))
      return 1;
    if (emit == Emit::Package) {
      FailureOr<std::vector<pkg::Function>> described =
          attnc::describePackageFunctions(*module, targetName, targetName);
      if (failed(described))
        return 1;
      functions = std::move(*described);
    }
    if (failed(runPipeline([&](OpPassManager &pm) {
          if (host)
            attnc::buildTilePipeline(pm);
          else
            attnc::buildGpuPipeline(pm, targetName);
        })))
      return 1;
  }
  if (emit != Emit::Mlir && emit != Emit::Tiled &&
      failed(runPipeline([&](OpPassManager &pm) {
        if (host)
          attnc::buildHostToLLVMPipeline(pm);
        else
          attnc::buildGpuToNVVMPipeline(pm);
      })))
    return 1;

  attnc::HostLibraryOptions hostOptions;
  hostOptions.cpu = hostCpu;
  std::string text;
  std::vector<uint8_t> bytes;
  pkg::Blob blob{targetName, host ? "host-so" : "cubin", {}};
  if (emit == Emit::Mlir || emit == Emit::Tiled) {
    llvm::raw_string_ostream os(text);
    module->print(os);
  } else if (emit == Emit::Llvm) {
    llvm::raw_string_ostream os(text);
    if (failed(attnc::printHostLLVMIR(*module, hostOptions, os)))
      return 1;
  } else if (host) {
    FailureOr<std::vector<uint8_t>> library =
        attnc::buildHostLibrary(*module, hostOptions);
    if (failed(library))
      return 1;
    blob.data = std::move(*library);
  } else {
    FailureOr<std::string> ptx = attnc::emitPTX(*module);
    if (failed(ptx))
      return 1;
    if (emit == Emit::Ptx) {
      text = std::move(*ptx);
    } else {
      FailureOr<attnc::CudaAssembly> assembly =
          attnc::assemblePTX(*module, *ptx, targetName);
      if (failed(assembly))
        return 1;
      for (pkg::Function &fn : functions)
        for (pkg::Kernel &kernel : fn.kernels)
          kernel.resources = assembly->resources[kernel.entry];
      if (explain)
        for (const auto &[kernel, report] : assembly->resources) {
          llvm::errs() << kernel << " (" << targetName << "):";
          for (const auto &[key, value] : report)
            llvm::errs() << " " << key << "=" << value;
          llvm::errs() << "\n";
        }
      blob.data = std::move(assembly->cubin);
    }
  }
  if (explain)
    for (const pkg::Function &fn : functions)
      for (const pkg::Kernel &kernel : fn.kernels) {
        llvm::errs() << fn.name << ": entry " << kernel.entry << ", block "
                     << kernel.block[0] << ", dynamic shared memory "
                     << kernel.dynamicSharedMemoryBytes << " bytes, tiles";
        for (const auto &[key, value] : kernel.config)
          llvm::errs() << " " << key << "=" << value;
        llvm::errs() << "\n";
      }

  if (emit == Emit::Cubin)
    bytes = std::move(blob.data);
  if (emit == Emit::Package) {
    pkg::Package package;
    package.producer = std::string("attnc ") + ATTNC_VERSION;
    package.functions = std::move(functions);
    package.blobs.push_back(std::move(blob));
    if (outputPath != "-") {
      attnc::Status written = pkg::writeFile(package, outputPath);
      if (!written)
        return reportIoError(written.message());
      return 0;
    }
    attnc::StatusOr<std::vector<uint8_t>> encoded = pkg::serialize(package);
    if (!encoded)
      return reportIoError(encoded.status().message());
    bytes = std::move(*encoded);
  }
  if (!bytes.empty() && outputPath == "-" &&
      llvm::sys::Process::StandardOutIsDisplayed())
    return reportIoError("refusing to write binary output to the terminal; "
                         "give an output file with -o");

  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputPath, &errorMessage);
  if (!output)
    return reportIoError(errorMessage);
  output->os() << text;
  output->os().write(reinterpret_cast<const char *>(bytes.data()),
                     bytes.size());
  output->os().flush();
  if (output->os().has_error()) {
    output->os().clear_error();
    return reportIoError("cannot write '" + outputPath + "'");
  }
  output->keep();
  return 0;
}
