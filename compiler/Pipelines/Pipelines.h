//===- Pipelines.h - The pass pipelines of attnc ----------------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Each pipeline has exactly one builder. `attnc` calls the builders directly,
// stage by stage, and `attn-opt` registers them by name, so the CLI and the
// lit tests always run the same passes.
//
//   attnc-frontend      canonicalize + CSE (what --emit=mlir prints)
//   attnc-programs      functions -> programs of kernels, buffers planned,
//                       kernel ops configured for the target
//   attnc-host-kernels  kernel ops -> host loops over block ranges
//                       (--emit=tiled for the host)
//   attnc-host-to-llvm  host kernels -> LLVM dialect with entry points
//   attnc-gpu-kernels   kernel ops -> gpu.module of kernels built from
//                       attngpu ops (--emit=tiled for GPU targets)
//   attnc-gpu-to-nvvm   gpu.module -> NVVM/LLVM dialect, ready for PTX
//   attnc-host          frontend, programs, host-kernels, host-to-llvm
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_PIPELINES_PIPELINES_H
#define ATTNC_COMPILER_PIPELINES_PIPELINES_H

#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
class OpPassManager;
} // namespace mlir

namespace attnc {

/// Registers every dialect that attnc reads or produces.
void registerAttncDialects(mlir::DialectRegistry &registry);

/// What the frontend derives besides canonicalizing: backward functions of
/// every public function (not only those marked `attn.backward`), whether
/// their gradients must be bitwise reproducible, and which forward values
/// they read saved rather than recomputed (attn-derive-backward's `remat`,
/// `remat-budget` and the symbol extents it is counted at), and the largest
/// tensor of a training step's flat state (attn-derive-train-step's
/// `max-flat-elements`).
struct FrontendOptions {
  bool backwardAll = false;
  bool deterministic = false;
  std::string remat = "attention";
  int64_t rematBudget = 0;
  std::vector<std::string> symbols;
  int64_t maxFlatElements = 2147483647;
};

void buildFrontendPipeline(mlir::OpPassManager &pm,
                           const FrontendOptions &options = {});
/// Forms programs of kernels, plans their buffers and configures the
/// kernels for `target`. The shape of the programs (how a gradient is split
/// into kernels, how keys are split) is chosen for `programTarget` (empty:
/// `target`), so that the targets of one package share one program; a
/// fused LM-head loss runs `vocabChunk` classes at a time. With
/// `overlapSteps`, programs shaped for a GPU run independent neighbouring
/// launches at the same time (attn-overlap-steps).
void buildProgramPipeline(mlir::OpPassManager &pm, const std::string &target,
                          const std::string &tensorCores = "auto",
                          int64_t keyRanges = 0,
                          const std::string &programTarget = "",
                          const std::vector<std::string> &kernelSchedule = {},
                          int64_t vocabChunk = 8192, bool overlapSteps = true);
void buildHostKernelPipeline(mlir::OpPassManager &pm);
void buildHostToLLVMPipeline(mlir::OpPassManager &pm);
void buildGpuKernelPipeline(mlir::OpPassManager &pm, const std::string &chip);
void buildGpuToNVVMPipeline(mlir::OpPassManager &pm);

/// Registers the passes and pipelines above with the registry (attn-opt).
void registerAttncPassesAndPipelines();

} // namespace attnc

#endif // ATTNC_COMPILER_PIPELINES_PIPELINES_H
