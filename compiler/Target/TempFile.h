//===- TempFile.h - Temporary files for tool subprocesses -------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_TARGET_TEMPFILE_H
#define ATTNC_COMPILER_TARGET_TEMPFILE_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Signals.h"

#include <optional>

namespace attnc {

/// A temporary file (for ptxas or the linker) removed when this goes out of
/// scope, or when a signal (SIGINT, SIGTERM, ...) ends the process while
/// it exists; creation failures are diagnostics on `module`.
struct TempFile {
  llvm::SmallString<128> path;
  std::optional<llvm::FileRemover> remover;

  TempFile() = default;
  TempFile(const TempFile &) = delete;
  TempFile &operator=(const TempFile &) = delete;
  ~TempFile() {
    if (remover)
      llvm::sys::DontRemoveFileOnSignal(path);
  }

  mlir::LogicalResult create(mlir::ModuleOp module, llvm::StringRef suffix) {
    int fd;
    if (std::error_code ec =
            llvm::sys::fs::createTemporaryFile("attnc", suffix, fd, path))
      return module.emitError()
             << "cannot create a temporary file: " << ec.message();
    llvm::sys::Process::SafelyCloseFileDescriptor(fd);
    remover.emplace(path);
    llvm::sys::RemoveFileOnSignal(path);
    return mlir::success();
  }
};

} // namespace attnc

#endif // ATTNC_COMPILER_TARGET_TEMPFILE_H
