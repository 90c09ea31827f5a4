//===- TargetDescription.h - What code generation knows of a target -*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A target is an input of the compiler, never queried from a device: the
// kernel-config step chooses tiles and tensor-core kinds from these facts,
// and the lowerings check their limits against them.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_CODEGEN_CONFIG_TARGETDESCRIPTION_H
#define ATTNC_COMPILER_CODEGEN_CONFIG_TARGETDESCRIPTION_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace attnc {

struct TargetDescription {
  enum class Kind { Host, NvidiaGpu };

  Kind kind = Kind::Host;
  /// "host", or the chip: "sm_90a".
  std::string name;
  /// Dynamic shared memory one block may use (GPU).
  int64_t sharedMemoryPerBlock = 0;
  /// Tensor-core instructions: mma.sync (sm_80 and up) and wgmma (sm_90a).
  bool hasMmaSync = false;
  bool hasWgmma = false;
  /// Build tensor-core kernels from mma.sync only, even where wgmma applies.
  bool onlyMmaSync = false;

  bool isGpu() const { return kind == Kind::NvidiaGpu; }

  /// The description of target `name` ("host" or "sm_90a") with the
  /// tensor-core choice `tensorCores` ("auto" or "mma-sync"); an unknown
  /// name or choice is reported through `emitError`.
  static mlir::FailureOr<TargetDescription>
  get(llvm::StringRef name, llvm::StringRef tensorCores,
      llvm::function_ref<mlir::InFlightDiagnostic()> emitError);
};

} // namespace attnc

#endif // ATTNC_COMPILER_CODEGEN_CONFIG_TARGETDESCRIPTION_H
