//===- OutlineGPUKernels.cpp - Kernel functions to a gpu.module -----------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A kernel function after convert-attn-to-gpu computes its grid from its
// buffers and holds one gpu.launch. The launch body becomes a gpu.func
// taking the function's buffers (the CUDA ABI of
// lib/include/attnc/package/Package.h: each memref argument expanded into its
// descriptor, then the tensor maps of attngpu.tensor_map ops), and the grid
// moves to the program's launches of the kernel.
//
//===----------------------------------------------------------------------===//

#include "compiler/Graph/LaunchGrid.h"
#include "compiler/Passes.h"
#include "dialects/attngpu/AttnGPUOps.h"
#include "dialects/attnrt/AttnRTOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace attnc {
#define GEN_PASS_DEF_ATTNOUTLINEGPUKERNELS
#include "compiler/Passes.h.inc"
} // namespace attnc

using namespace mlir;

namespace {

/// Whether `op` may do more than read memory (an op without a model of its
/// effects may).
bool mayWrite(Operation *op) {
  if (op->getNumRegions() != 0)
    return true;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return true;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::any_of(instances, [](const MemoryEffects::EffectInstance &e) {
    return !isa<MemoryEffects::Read>(e.getEffect());
  });
}

/// The kernel's one gpu.launch. Ops around it only compute the grid and the
/// constants the body reads (and dead reads of the kernel op's operands):
/// anything that writes would be lost.
FailureOr<gpu::LaunchOp> launchOf(func::FuncOp kernel) {
  auto launches = kernel.getBody().getOps<gpu::LaunchOp>();
  if (std::distance(launches.begin(), launches.end()) != 1)
    return kernel.emitError() << "GPU kernel " << kernel.getName()
                              << " must hold exactly one gpu.launch";
  for (Operation &op : kernel.getBody().front().without_terminator())
    if (!isa<gpu::LaunchOp>(op) && mayWrite(&op))
      return op.emitError() << "GPU kernel " << kernel.getName()
                            << " may compute only its grid and constants "
                               "outside its gpu.launch";
  return *launches.begin();
}

/// The constant value of `v`, or a diagnostic naming `what`.
FailureOr<int64_t> constantOf(gpu::LaunchOp launch, Value v, StringRef what) {
  APInt value;
  if (!matchPattern(v, m_ConstantInt(&value)))
    return launch.emitError() << "the " << what
                              << " of a kernel launch must be a constant";
  return value.getSExtValue();
}

/// Maps the launch body's ids and sizes to the gpu ops that read them.
void mapLaunchArguments(OpBuilder &b, gpu::LaunchOp launch,
                        IRMapping &mapping) {
  Location loc = launch.getLoc();
  auto map = [&](gpu::KernelDim3 dims, auto create) {
    mapping.map(dims.x, create(gpu::Dimension::x));
    mapping.map(dims.y, create(gpu::Dimension::y));
    mapping.map(dims.z, create(gpu::Dimension::z));
  };
  map(launch.getBlockIds(),
      [&](gpu::Dimension d) { return gpu::BlockIdOp::create(b, loc, d); });
  map(launch.getThreadIds(),
      [&](gpu::Dimension d) { return gpu::ThreadIdOp::create(b, loc, d); });
  map(launch.getGridSize(),
      [&](gpu::Dimension d) { return gpu::GridDimOp::create(b, loc, d); });
  map(launch.getBlockSize(),
      [&](gpu::Dimension d) { return gpu::BlockDimOp::create(b, loc, d); });
}

/// The tensor maps under `root`, in order: each becomes a parameter of the
/// kernel after its memrefs, and its validity a bit of one more.
SmallVector<attngpu::TensorMapOp> tensorMapsOf(Operation *root) {
  SmallVector<attngpu::TensorMapOp> maps;
  root->walk([&](attngpu::TensorMapOp op) { maps.push_back(op); });
  return maps;
}

/// Describes the tensor maps of `function`'s body on it
/// (attngpu::kTensorMapsAttr) and replaces them by its trailing
/// parameters: each map, then their valid bits.
LogicalResult replaceTensorMaps(gpu::GPUFuncOp function, unsigned memrefs) {
  SmallVector<attngpu::TensorMapOp> maps = tensorMapsOf(function);
  if (maps.empty())
    return success();
  OpBuilder b = OpBuilder::atBlockBegin(&function.getBody().front());
  Location loc = function.getLoc();
  Value bits = function.getArgument(memrefs + maps.size());
  auto i64 = [&](int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
  };
  Value zero = i64(0);
  SmallVector<Attribute> described;
  for (auto [i, map] : llvm::enumerate(maps)) {
    auto input = dyn_cast<BlockArgument>(map.getInput());
    if (!input || input.getOwner() != &function.getBody().front() ||
        input.getArgNumber() >= memrefs)
      return map.emitError() << "a tensor map must describe an argument of "
                                "the GPU kernel";
    described.push_back(b.getDictionaryAttr(
        {b.getNamedAttr("arg", b.getI64IntegerAttr(input.getArgNumber())),
         b.getNamedAttr("box", map.getBoxAttr()),
         b.getNamedAttr("swizzle_bytes", map.getSwizzleBytesAttr())}));
    Value bit = arith::AndIOp::create(b, loc, bits, i64(int64_t{1} << i));
    map.getMap().replaceAllUsesWith(function.getArgument(memrefs + i));
    map.getValid().replaceAllUsesWith(
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, bit, zero));
    map.erase();
  }
  function->setAttr(attngpu::kTensorMapsAttr, b.getArrayAttr(described));
  return success();
}

/// Clones the launch body into `function`, with the kernel's arguments
/// mapped to the function's, tensor maps to its trailing parameters and
/// constants from outside recreated inside.
LogicalResult cloneBody(gpu::LaunchOp launch, func::FuncOp kernel,
                        gpu::GPUFuncOp function) {
  Block &entry = function.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  IRMapping mapping;
  mapping.map(kernel.getArguments(),
              function.getArguments().take_front(kernel.getNumArguments()));
  mapLaunchArguments(b, launch, mapping);
  WalkResult outside = launch.getBody().walk([&](Operation *op) {
    for (Value operand : op->getOperands()) {
      if (mapping.contains(operand) ||
          launch.getBody().isAncestor(operand.getParentRegion()))
        continue;
      Operation *def = operand.getDefiningOp();
      if (!def || !def->hasTrait<OpTrait::ConstantLike>()) {
        op->emitError() << "a GPU kernel body may use only the kernel's "
                           "arguments and constants from outside the launch";
        return WalkResult::interrupt();
      }
      mapping.map(operand, b.clone(*def)->getResult(0));
    }
    return WalkResult::advance();
  });
  if (outside.wasInterrupted())
    return failure();
  for (Operation &op : launch.getBody().front()) {
    if (isa<gpu::TerminatorOp>(op))
      gpu::ReturnOp::create(b, op.getLoc());
    else
      b.clone(op, mapping);
  }
  return replaceTensorMaps(function, kernel.getNumArguments());
}

/// Moves the grid of `kernel`'s launch to the program's launches of it;
/// returns its grid record.
FailureOr<SmallVector<int64_t>> moveGrid(ModuleOp module, func::FuncOp kernel) {
  FailureOr<gpu::LaunchOp> launch = launchOf(kernel);
  if (failed(launch))
    return failure();
  gpu::KernelDim3 grid = launch->getGridSizeOperandValues();
  return attnc::setLaunchGrids(module, kernel,
                               ValueRange{grid.x, grid.y, grid.z});
}

LogicalResult outline(func::FuncOp kernel, gpu::GPUModuleOp gpuModule) {
  FailureOr<gpu::LaunchOp> launch = launchOf(kernel);
  if (failed(launch))
    return failure();
  gpu::KernelDim3 sizes = launch->getBlockSizeOperandValues();
  SmallVector<int32_t> block;
  for (Value size : {sizes.x, sizes.y, sizes.z}) {
    FailureOr<int64_t> threads = constantOf(*launch, size, "block size");
    if (failed(threads))
      return failure();
    block.push_back(static_cast<int32_t>(*threads));
  }
  // A launch without dynamic shared memory uses none.
  FailureOr<int64_t> sharedBytes = 0;
  if (Value bytes = launch->getDynamicSharedMemorySize())
    sharedBytes = constantOf(*launch, bytes, "dynamic shared memory");
  if (failed(sharedBytes))
    return failure();

  OpBuilder b = OpBuilder::atBlockEnd(gpuModule.getBody());
  // Tensor maps follow the memrefs: a pointer to each, then their valid bits.
  size_t maps = tensorMapsOf(*launch).size();
  SmallVector<Type> inputs(kernel.getArgumentTypes());
  if (maps) {
    inputs.append(maps, LLVM::LLVMPointerType::get(b.getContext()));
    inputs.push_back(b.getI64Type());
  }
  auto function = gpu::GPUFuncOp::create(b, kernel.getLoc(), kernel.getName(),
                                         b.getFunctionType(inputs, {}));
  function->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                    b.getUnitAttr());
  function.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr(block));
  function->setAttr(attngpu::kDynamicSharedMemoryBytesAttr, b.getI64IntegerAttr(*sharedBytes));
  return cloneBody(*launch, kernel, function);
}

struct AttnOutlineGPUKernelsPass
    : attnc::impl::AttnOutlineGPUKernelsBase<AttnOutlineGPUKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto kernels = module.lookupSymbol<ModuleOp>(attnrt::kKernelModuleName);
    if (!kernels)
      return;
    // Grids first, while the launches' symbols still resolve to the kernel
    // functions.
    SmallVector<func::FuncOp> functions = attnc::kernelFunctions(module);
    SmallVector<SmallVector<int64_t>> records;
    for (func::FuncOp kernel : functions) {
      FailureOr<SmallVector<int64_t>> record = moveGrid(module, kernel);
      if (failed(record))
        return signalPassFailure();
      records.push_back(std::move(*record));
    }
    MLIRContext *ctx = module.getContext();
    OpBuilder b(kernels);
    // PTX 8.1: the vector reductions of the backward kernels
    // (attngpu.red_add) need it; CUDA 12.1 drivers and later accept it.
    auto target = NVVM::NVVMTargetAttr::get(
        ctx, /*optLevel=*/3, "nvptx64-nvidia-cuda", chip, "+ptx81");
    auto gpuModule = gpu::GPUModuleOp::create(
        b, kernels.getLoc(), attnrt::kKernelModuleName, b.getArrayAttr({target}));
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(ctx));
    for (auto [kernel, record] : llvm::zip_equal(functions, records)) {
      if (failed(outline(kernel, gpuModule)))
        return signalPassFailure();
      // Global memory, where cuModuleGetGlobal finds it.
      attnc::addI64Table(gpuModule, kernel.getLoc(),
                         attnrt::gridRecordName(kernel.getName()), record,
                         /*addressSpace=*/1);
    }
    kernels.erase();
  }
};

} // namespace
