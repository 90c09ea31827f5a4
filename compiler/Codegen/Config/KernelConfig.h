//===- KernelConfig.h - Kernel choices other passes plan around -*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// attn-kernel-config chooses every kernel's tiles; the few choices that
// passes before it must plan around (how many key ranges a decoding kernel
// wants) are asked here, so that both read one rule.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_CODEGEN_CONFIG_KERNELCONFIG_H
#define ATTNC_COMPILER_CODEGEN_CONFIG_KERNELCONFIG_H

#include "compiler/Codegen/Config/TargetDescription.h"
#include "dialects/attn/AttnOps.h"

namespace attnc {

/// Whether `op`, decoding (a static query length of 1) with 2 to 64 query
/// heads per key/value head, runs on `target` as one wgmma warpgroup whose
/// 64 rows hold a key/value group's heads.
bool packsGroupOnWarpgroup(mlir::attn::AttentionScoringOpInterface op,
                           const TargetDescription &target);

} // namespace attnc

#endif // ATTNC_COMPILER_CODEGEN_CONFIG_KERNELCONFIG_H
