//===- TargetDescription.cpp - What code generation knows of a target -----===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/Config/TargetDescription.h"

using namespace mlir;

FailureOr<attnc::TargetDescription>
attnc::TargetDescription::get(StringRef name, StringRef tensorCores,
                              function_ref<InFlightDiagnostic()> emitError) {
  TargetDescription target;
  target.name = name.str();
  if (name == "sm_90a") {
    target.kind = Kind::NvidiaGpu;
    // 227 KiB: what an sm_90 block may opt in to.
    target.sharedMemoryPerBlock = 232448;
    target.hasMmaSync = true;
    target.hasWgmma = true;
  } else if (name != "host") {
    return emitError() << "unknown target '" << name
                       << "'; expected host or sm_90a";
  }
  if (tensorCores == "mma-sync")
    target.onlyMmaSync = true;
  else if (tensorCores != "auto")
    return emitError() << "unknown tensor-core kernel '" << tensorCores
                       << "'; expected auto or mma-sync";
  return target;
}
