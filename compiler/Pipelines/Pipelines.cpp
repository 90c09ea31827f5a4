//===- Pipelines.cpp - The pass pipelines of attnc ------------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "compiler/Pipelines/Pipelines.h"

#include "compiler/Passes.h"
#include "dialects/attn/AttnDialect.h"
#include "dialects/attngpu/AttnGPUOps.h"
#include "dialects/attnrt/AttnRTOps.h"
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void attnc::registerAttncDialects(DialectRegistry &registry) {
  registry
      .insert<attn::AttnDialect, attngpu::AttnGPUDialect, attnrt::AttnRTDialect,
              arith::ArithDialect, bufferization::BufferizationDialect,
              func::FuncDialect,
              gpu::GPUDialect, LLVM::LLVMDialect, math::MathDialect,
              memref::MemRefDialect, nvgpu::NVGPUDialect, NVVM::NVVMDialect,
              scf::SCFDialect, tensor::TensorDialect, vector::VectorDialect>();
  // convert-gpu-to-nvvm lowers the other dialects in a kernel through their
  // ConvertToLLVM interfaces, which must be registered.
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  NVVM::registerConvertGpuToNVVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry);
  // Serializing gpu.modules translates them to LLVM IR for the NVPTX backend.
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
}

void attnc::buildFrontendPipeline(OpPassManager &pm,
                                  const FrontendOptions &options) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(createAttnFuseElementwise());
  // Before autodiff, so that the gradient is the fused loss's too.
  pm.addNestedPass<func::FuncOp>(createAttnFuseLinearLoss());
  AttnDeriveBackwardOptions derive{options.backwardAll,
                                   options.deterministic,
                                   options.remat,
                                   options.rematBudget,
                                   {}};
  derive.symbols.assign(options.symbols.begin(), options.symbols.end());
  pm.addPass(createAttnDeriveBackward(derive));
  pm.addPass(createAttnDeriveTrainStep({options.maxFlatElements}));
  pm.addPass(createAttnDifferentiateScore());
  pm.addNestedPass<func::FuncOp>(createAttnNarrowRegionIndices());
  pm.addNestedPass<func::FuncOp>(createAttnContractScoreRegions());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // The backward's own element-wise chains (gradients that meet, and the
  // products of the chain rule).
  pm.addNestedPass<func::FuncOp>(createAttnFuseElementwise());
  pm.addNestedPass<func::FuncOp>(createAttnFuseActivations());
  pm.addNestedPass<func::FuncOp>(createAttnFuseEpilogues());
  pm.addNestedPass<func::FuncOp>(createAttnFuseCasts());
  // Fusion leaves what the ops' canonicalizations remove: a gradient that
  // reaches two results of one fused kernel is written once.
  pm.addPass(createCanonicalizerPass());
}

void attnc::buildProgramPipeline(OpPassManager &pm, const std::string &target,
                                 const std::string &tensorCores,
                                 int64_t keyRanges,
                                 const std::string &programTarget,
                                 const std::vector<std::string> &kernelSchedule,
                                 int64_t vocabChunk, bool overlapSteps) {
  const std::string &shapeTarget =
      programTarget.empty() ? target : programTarget;
  pm.addNestedPass<func::FuncOp>(createAttnExpandAttentionGrad({shapeTarget}));
  pm.addNestedPass<func::FuncOp>(createAttnExpandLinearLoss({vocabChunk}));
  pm.addNestedPass<func::FuncOp>(
      createAttnSplitKeys({shapeTarget, tensorCores, keyRanges}));
  pm.addPass(createAttnFormPrograms());
  // The host runs one kernel at a time, each over all its cores.
  if (overlapSteps && shapeTarget != "host")
    pm.addPass(createAttnOverlapSteps());
  pm.addNestedPass<func::FuncOp>(createAttnPlanBuffers());
  AttnKernelConfigOptions config;
  config.target = target;
  config.tensorCores = tensorCores;
  config.kernelSchedule.assign(kernelSchedule.begin(), kernelSchedule.end());
  pm.nest<ModuleOp>().addNestedPass<func::FuncOp>(
      createAttnKernelConfig(config));
  pm.addPass(createAttnMergeIdenticalKernels());
}

void attnc::buildHostKernelPipeline(OpPassManager &pm) {
  pm.addPass(createConvertAttnToHost());
  pm.addPass(createAttnHostBlockRanges());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

/// Structured control flow and memref metadata to plain branches and
/// arithmetic, before either target's conversion to LLVM.
static void addLoweringToBranches(OpPassManager &pm) {
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
}

void attnc::buildHostToLLVMPipeline(OpPassManager &pm) {
  // Only the kernels become code; programs stay for the package writer.
  OpPassManager &kernels = pm.nest<ModuleOp>();
  // bf16 conversions become integer arithmetic: the x86 C runtime has no
  // bf16 truncation routine to call.
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  kernels.addPass(arith::createArithExpandOpsPass(expand));
  // Math ops with an LLVM intrinsic use it; the rest call libm.
  kernels.addPass(createConvertMathToLLVMPass());
  kernels.addPass(createConvertMathToLibmPass());
  addLoweringToBranches(kernels);
  // Element kernels' vector chunks (ElementKernel.h).
  kernels.addPass(createConvertVectorToLLVMPass());
  kernels.addPass(createFinalizeMemRefToLLVMConversionPass());
  kernels.addPass(createArithToLLVMConversionPass());
  kernels.addPass(createConvertIndexToLLVMPass());
  kernels.addPass(createConvertFuncToLLVMPass());
  kernels.addPass(createConvertControlFlowToLLVMPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  kernels.addPass(createAttnHostEntryPoints());
  kernels.addPass(createCanonicalizerPass());
}

void attnc::buildGpuKernelPipeline(OpPassManager &pm, const std::string &chip) {
  pm.addPass(createAttnLibraryCalls());
  pm.addPass(createConvertAttnToGPU({chip}));
  pm.addPass(createAttnOutlineGPUKernels({chip}));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createAttnGPULowerSharedTiles());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void attnc::buildGpuToNVVMPipeline(OpPassManager &pm) {
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createConvertAttnGPUToNVVM());
  // nvgpu (ldmatrix, cp.async) lowers to NVVM ops on vectors.
  kernels.addPass(createConvertNVGPUToNVVMPass());
  addLoweringToBranches(kernels);
  // Memref kernel arguments keep MLIR's expanded descriptor convention
  // (allocated, aligned, offset, sizes, strides): the runtime's CUDA ABI.
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  // Math ops libdevice has no function for (math.absi on i64 and index)
  // become LLVM intrinsics, which NVPTX selects.
  kernels.addPass(createConvertMathToLLVMPass());
  // NVVM ops without an LLVM intrinsic (mbarrier waits) become inline PTX.
  kernels.addPass(createConvertNVVMToLLVMPass());
  kernels.addPass(createAttnAlignDynamicSharedMemory());
  kernels.addPass(createAttnTensorMapParams());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
}

namespace {
struct TargetOptions : PassPipelineOptions<TargetOptions> {
  Option<std::string> target{*this, "target", llvm::cl::desc("host or sm_90a"),
                             llvm::cl::init("host")};
  Option<std::string> tensorCores{
      *this, "tensor-cores", llvm::cl::desc("auto or mma-sync"),
      llvm::cl::init("auto")};
  Option<int64_t> keyRanges{
      *this, "key-ranges",
      llvm::cl::desc("Key ranges per attention op: 0 chooses, 1 never splits"),
      llvm::cl::init(0)};
  Option<std::string> programTarget{
      *this, "program-target",
      llvm::cl::desc("Target whose costs shape the programs (default: "
                     "target)"),
      llvm::cl::init("")};
  ListOption<std::string> kernelSchedule{
      *this, "kernel-schedule",
      llvm::cl::desc("wgmma kernel options to give every kernel they "
                     "apply to: ping-pong")};
  Option<int64_t> vocabChunk{
      *this, "vocab-chunk",
      llvm::cl::desc("Classes per chunk of a fused LM-head loss"),
      llvm::cl::init(8192)};
  Option<bool> overlapSteps{
      *this, "overlap-steps",
      llvm::cl::desc("Run independent neighbouring launches of programs "
                     "shaped for a GPU at the same time"),
      llvm::cl::init(true)};
};
struct FrontendPipelineOptions : PassPipelineOptions<FrontendPipelineOptions> {
  Option<bool> backwardAll{*this, "backward",
                           llvm::cl::desc("Derive @f_bwd for every public "
                                          "function"),
                           llvm::cl::init(false)};
  Option<bool> deterministic{
      *this, "deterministic-grad",
      llvm::cl::desc("Bitwise-reproducible gradients (dq without atomics)"),
      llvm::cl::init(false)};
  Option<std::string> remat{
      *this, "remat",
      llvm::cl::desc("Forward values the backward reads saved: none, "
                     "attention or full (see attn-derive-backward)"),
      llvm::cl::init("attention")};
};
} // namespace

void attnc::registerAttncPassesAndPipelines() {
  registerAttncPasses();
  PassPipelineRegistration<FrontendPipelineOptions>(
      "attnc-frontend",
      "Canonicalize and CSE a verified attn module and derive the backward "
      "functions it asks for (what `attnc --emit=mlir` prints)",
      [](OpPassManager &pm, const FrontendPipelineOptions &options) {
        buildFrontendPipeline(
            pm, {options.backwardAll, options.deterministic, options.remat});
      });
  PassPipelineRegistration<TargetOptions>(
      "attnc-programs",
      "Form programs of kernels, plan their buffers and configure the "
      "kernels for a target",
      [](OpPassManager &pm, const TargetOptions &options) {
        buildProgramPipeline(
            pm, options.target, options.tensorCores, options.keyRanges,
            options.programTarget,
            {options.kernelSchedule.begin(), options.kernelSchedule.end()},
            options.vocabChunk, options.overlapSteps);
      });
  PassPipelineRegistration<>(
      "attnc-host-kernels",
      "Lower kernel ops into host loops over block ranges (what `attnc "
      "--emit=tiled` prints)",
      [](OpPassManager &pm) { buildHostKernelPipeline(pm); });
  PassPipelineRegistration<>(
      "attnc-host-to-llvm",
      "Lower host kernels to the LLVM dialect with packed entry points",
      [](OpPassManager &pm) { buildHostToLLVMPipeline(pm); });
  PassPipelineRegistration<TargetOptions>(
      "attnc-gpu-kernels",
      "Lower kernel ops into a gpu.module of kernels (what `attnc "
      "--emit=tiled` prints for GPU targets)",
      [](OpPassManager &pm, const TargetOptions &options) {
        buildGpuKernelPipeline(pm, options.target);
      });
  PassPipelineRegistration<>(
      "attnc-gpu-to-nvvm", "Lower the gpu.module to the NVVM and LLVM dialects",
      [](OpPassManager &pm) { buildGpuToNVVMPipeline(pm); });
  PassPipelineRegistration<>("attnc-host",
                             "The whole host pipeline, attn to LLVM dialect",
                             [](OpPassManager &pm) {
                               buildFrontendPipeline(pm);
                               buildProgramPipeline(pm, "host");
                               buildHostKernelPipeline(pm);
                               buildHostToLLVMPipeline(pm);
                             });
}
