//===- CudaBinary.cpp - GPU kernels to PTX and cubin ----------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// PTX comes from MLIR's NVVM serializer (format=isa), which links libdevice
// when given the toolkit. ptxas runs as a subprocess rather than through the
// serializer because MLIR's release build discards ptxas -v output, and the
// resource report (registers, spills, wgmma serialization warnings) is what
// tells whether a kernel is fast.
//
//===----------------------------------------------------------------------===//

#include "compiler/Target/CUDA/CudaBinary.h"

#include "compiler/Target/CUDA/PtxasReport.h"

#include "compiler/Target/TempFile.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"

#include <cstdlib>

using namespace mlir;

std::string attnc::cudaToolkitPath() {
  for (const char *name : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *value = std::getenv(name); value && *value)
      return value;
  return "/usr/local/cuda";
}

FailureOr<std::string> attnc::emitPTX(ModuleOp module) {
  std::string toolkit = cudaToolkitPath();
  llvm::SmallString<256> libdevice(toolkit);
  llvm::sys::path::append(libdevice, "nvvm", "libdevice", "libdevice.10.bc");
  if (!llvm::sys::fs::exists(libdevice))
    return module.emitError() << "libdevice not found at " << libdevice
                              << ": set CUDA_HOME to a CUDA toolkit";

  // Serialized in a module of their own: the caller's module keeps its
  // gpu.module, which its programs' launches name.
  OwningOpRef<ModuleOp> kernels = ModuleOp::create(module.getLoc());
  for (auto gpuModule : module.getOps<gpu::GPUModuleOp>())
    kernels->push_back(gpuModule->clone());
  PassManager pm(module.getContext());
  GpuModuleToBinaryPassOptions options;
  options.toolkitPath = toolkit;
  options.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(options));
  if (failed(pm.run(*kernels)))
    return failure();

  std::string ptx;
  kernels->walk([&](gpu::BinaryOp binary) {
    for (Attribute object : binary.getObjects())
      ptx += cast<gpu::ObjectAttr>(object).getObject().getValue().str();
  });
  if (ptx.empty())
    return module.emitError() << "the module has no GPU kernels";
  return ptx;
}

FailureOr<attnc::CudaAssembly>
attnc::assemblePTX(ModuleOp module, StringRef ptx, StringRef chip) {
  llvm::SmallString<256> inToolkit(cudaToolkitPath());
  llvm::sys::path::append(inToolkit, "bin", "ptxas");
  std::string ptxas = inToolkit.str().str();
  if (!llvm::sys::fs::can_execute(ptxas)) {
    llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName("ptxas");
    if (!found)
      return module.emitError()
             << "cannot find ptxas in " << cudaToolkitPath()
             << "/bin or on PATH: set CUDA_HOME to a CUDA toolkit";
    ptxas = *found;
  }

  attnc::TempFile input, output, log;
  if (failed(input.create(module, "ptx")) ||
      failed(output.create(module, "cubin")) ||
      failed(log.create(module, "log")))
    return failure();
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(input.path, ec);
    if (ec)
      return module.emitError()
             << "cannot write " << input.path << ": " << ec.message();
    os << ptx;
  }
  std::string arch = ("-arch=" + chip).str();
  SmallVector<StringRef> args = {ptxas,      arch, "-O3",      "-v",
                                 input.path, "-o", output.path};
  std::optional<StringRef> redirects[] = {std::nullopt, log.path.str(),
                                          log.path.str()};
  std::string error;
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects,
                                     /*SecondsToWait=*/300, 0, &error);
  auto logText = llvm::MemoryBuffer::getFile(log.path);
  std::string logString = logText ? (*logText)->getBuffer().str() : "";
  if (rc != 0)
    return module.emitError()
           << "ptxas failed" << (error.empty() ? "" : ": ") << error << "\n"
           << logString;
  auto cubin = llvm::MemoryBuffer::getFile(output.path, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
  if (!cubin)
    return module.emitError() << "cannot read the cubin ptxas wrote: "
                              << cubin.getError().message();
  StringRef bytes = (*cubin)->getBuffer();
  CudaAssembly assembly;
  assembly.cubin.assign(bytes.begin(), bytes.end());
  assembly.resources = parsePtxasReport(logString);
  assembly.log = std::move(logString);
  return assembly;
}
