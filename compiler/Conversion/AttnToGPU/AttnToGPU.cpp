//===- AttnToGPU.cpp - attn.attention to GPU kernels ----------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Each kernel-form function becomes a gpu.func in one gpu.module: block
// (x, y, z) = (query block, head, batch) of the same grid the host uses
// (query blocks in reverse for causal kernels), the working tiles in
// dynamic shared memory. 16-bit inputs get a tensor-core kernel
// (MmaKernel), a warp per 16 query rows; the rest BlockBuilder's
// recurrence with one thread per query row.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/AttnToGPU/AttnToGPU.h"

#include "compiler/Conversion/AttnToGPU/MmaKernel.h"

#include "compiler/Conversion/AttnToTiled/AttnToTiled.h"
#include "compiler/Conversion/AttnToTiled/BlockBuilder.h"
#include "compiler/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

namespace attnc {
#define GEN_PASS_DEF_CONVERTATTNTOGPU
#include "compiler/Passes.h.inc"
} // namespace attnc

using namespace mlir;

attnc::GpuBlockLayout attnc::getGpuBlockLayout(attn::AttentionOp op) {
  attn::TilesAttr tiles = *op.getTiles();
  int64_t blockM = tiles.getBlockM(), blockN = tiles.getBlockN();
  int64_t headDim = op.getQ().getType().getDimSize(3);
  int64_t headDimV = op.getV().getType().getDimSize(3);
  GpuBlockLayout layout;
  layout.threads = blockM;
  layout.qRow = headDim + 1;
  layout.sRow = blockN + 1;
  layout.accRow = headDimV + 1;
  int64_t offset = 0;
  auto place = [&](int64_t elements) {
    int64_t at = offset;
    offset += elements * static_cast<int64_t>(sizeof(float));
    return at;
  };
  layout.qOffset = place(blockM * layout.qRow);
  layout.kOffset = place(blockN * headDim);
  layout.vOffset = place(blockN * headDimV);
  layout.sOffset = place(blockM * layout.sRow);
  layout.accOffset = place(blockM * layout.accRow);
  layout.rowMaxOffset = place(blockM);
  layout.rowSumOffset = place(blockM);
  layout.sharedBytes = offset;
  return layout;
}

attnc::GpuLaunch attnc::getGpuLaunch(attn::AttentionOp op) {
  if (std::optional<MmaConfig> config = getMmaConfig(op))
    return {config->threads(), getMmaSharedLayout(op, *config).bytes};
  GpuBlockLayout layout = getGpuBlockLayout(op);
  return {layout.threads, layout.sharedBytes};
}

namespace {

/// The scalar form: one thread per query row, the f32 tiles of
/// GpuBlockLayout in shared memory, BlockBuilder's recurrence.
void emitScalarKernel(OpBuilder &b, Location loc, attn::AttentionOp op,
                      const attnc::KernelOperands &operands, Value shared,
                      Value threadId, Value qBlock, Value head, Value batch) {
  attnc::GpuBlockLayout layout = attnc::getGpuBlockLayout(op);
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto view = [&](int64_t offset, ArrayRef<int64_t> shape) {
    Value at = arith::ConstantIndexOp::create(b, loc, offset);
    auto type = MemRefType::get(shape, b.getF32Type(), nullptr, workgroup);
    return memref::ViewOp::create(b, loc, type, shared, at, ValueRange{})
        .getResult();
  };
  attn::TilesAttr tiles = *op.getTiles();
  int64_t blockM = tiles.getBlockM(), blockN = tiles.getBlockN();
  int64_t headDim = op.getQ().getType().getDimSize(3);
  int64_t headDimV = op.getV().getType().getDimSize(3);
  attnc::BlockTiles t{view(layout.qOffset, {blockM, layout.qRow}),
                      view(layout.kOffset, {blockN, headDim}),
                      view(layout.vOffset, {blockN, headDimV}),
                      view(layout.sOffset, {blockM, layout.sRow}),
                      view(layout.accOffset, {blockM, layout.accRow}),
                      view(layout.rowMaxOffset, {blockM}),
                      view(layout.rowSumOffset, {blockM})};
  attnc::emitAttentionBlock(b, loc, op, operands, t, qBlock, head, batch,
                            threadId);
}

struct ConvertAttnToGPUPass
    : attnc::impl::ConvertAttnToGPUBase<ConvertAttnToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> kernels;
    for (auto func : module.getOps<func::FuncOp>()) {
      bool hasAttention = false;
      func.walk([&](attn::AttentionOp) { hasAttention = true; });
      if (hasAttention)
        kernels.push_back(func);
    }
    if (kernels.empty())
      return;

    MLIRContext *ctx = module.getContext();
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(module.getBody());
    auto target = NVVM::NVVMTargetAttr::get(
        ctx, /*optLevel=*/3, "nvptx64-nvidia-cuda", chip, "+ptx80");
    auto gpuModule = gpu::GPUModuleOp::create(
        b, module.getLoc(), attnc::kGpuModuleName, b.getArrayAttr({target}));
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(ctx));

    for (func::FuncOp func : kernels) {
      if (failed(lowerKernel(func, gpuModule)))
        return signalPassFailure();
      func.erase();
    }
  }

  LogicalResult lowerKernel(func::FuncOp func, gpu::GPUModuleOp gpuModule) {
    FailureOr<attnc::AttentionKernelForm> form = attnc::matchTiledKernel(func);
    if (failed(form))
      return failure();
    attn::AttentionOp op = form->op;
    attnc::GpuLaunch launch = attnc::getGpuLaunch(op);
    if (launch.sharedBytes > attnc::kSm90SharedMemoryBytes)
      return op.emitError()
             << "tiles " << op.getTiles()->getBlockM() << "x"
             << op.getTiles()->getBlockN() << " need " << launch.sharedBytes
             << " bytes of shared memory per block, more than the "
             << attnc::kSm90SharedMemoryBytes << " an sm_90a block has";

    MLIRContext *ctx = func.getContext();
    SmallVector<Type> argTypes = attnc::kernelTensorTypes(func);

    Location loc = op.getLoc();
    OpBuilder b = OpBuilder::atBlockEnd(gpuModule.getBody());
    auto kernel = gpu::GPUFuncOp::create(b, loc, func.getName(),
                                         FunctionType::get(ctx, argTypes, {}));
    kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                    UnitAttr::get(ctx));
    kernel.setKnownBlockSizeAttr(
        b.getDenseI32ArrayAttr({static_cast<int32_t>(launch.threads), 1, 1}));

    Block &body = kernel.getBody().front();
    b.setInsertionPointToStart(&body);
    Value threadId = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value qBlock = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    // Causal blocks near the end of the sequence do the most work: launch
    // them first, so that the last wave holds the short ones.
    if (op.getCausal())
      qBlock = arith::SubIOp::create(
          b, loc,
          arith::SubIOp::create(
              b, loc, gpu::GridDimOp::create(b, loc, gpu::Dimension::x),
              qBlock),
          arith::ConstantIndexOp::create(b, loc, 1));
    Value head = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
    Value batch = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);

    auto workgroup =
        gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    auto bytesType = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                     nullptr, workgroup);
    Value shared = gpu::DynamicSharedMemoryOp::create(b, loc, bytesType);
    auto argFor = [&](Value operand) {
      return body.getArgument(cast<BlockArgument>(operand).getArgNumber());
    };
    unsigned numInputs = func.getNumArguments();
    Value out, lse;
    for (auto [i, isOut] : llvm::enumerate(form->resultIsOut))
      (isOut ? out : lse) = body.getArgument(numInputs + i);
    attnc::KernelOperands operands{argFor(op.getQ()), argFor(op.getK()),
                                   argFor(op.getV()), out, lse};
    if (std::optional<attnc::MmaConfig> config = attnc::getMmaConfig(op))
      attnc::emitMmaKernel(b, loc, op, *config, operands, shared, threadId,
                           qBlock, head, batch);
    else
      emitScalarKernel(b, loc, op, operands, shared, threadId, qBlock, head,
                       batch);
    gpu::ReturnOp::create(b, loc);
    return success();
  }
};

} // namespace
