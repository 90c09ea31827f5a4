//===- PtxasReport.h - What ptxas -v says about each kernel -----*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_TARGET_CUDA_PTXASREPORT_H
#define ATTNC_COMPILER_TARGET_CUDA_PTXASREPORT_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <string>

namespace attnc {

/// Kernel name -> "registers", "stack_bytes", "spill_store_bytes",
/// "spill_load_bytes" and, when ptxas serialized wgmma instructions, the
/// number of such warnings (C751x) as "wgmma_serialization_warnings".
using PtxasReport = std::map<std::string, std::map<std::string, int64_t>>;

/// Reads the output of `ptxas -v`. A C751x warning names its kernel ("in the
/// function 'NAME'"); ptxas prints them before the per-kernel lines.
PtxasReport parsePtxasReport(llvm::StringRef log);

} // namespace attnc

#endif // ATTNC_COMPILER_TARGET_CUDA_PTXASREPORT_H
