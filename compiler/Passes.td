//===- Passes.td - attnc passes ----------------------------*- tablegen -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_PASSES_TD
#define ATTNC_COMPILER_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Passes (keep alphabetical)
//===----------------------------------------------------------------------===//

def AttnAlignDynamicSharedMemory
    : Pass<"attn-align-dynamic-shared-memory", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Align the dynamic shared memory of lowered GPU kernels";
  let description = [{
    `convert-gpu-to-nvvm` gives `gpu.dynamic_shared_memory` an internal,
    zero-length, 16-byte aligned `__dynamic_shmem__*` global. The warpgroup
    MMA kernels address their tiles in 128-byte swizzled panels whose
    pattern repeats every 1024 bytes, so the panels, and hence the base, must
    be 1024-byte aligned. This pass makes every such global external (the
    dynamic shared memory itself, not a local variable) with `alignment`.
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", /*default=*/"1024",
           "Byte alignment of the dynamic shared memory base">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def AttnHostEntryPoints : Pass<"attn-host-entry-points", "::mlir::ModuleOp"> {
  let summary = "Give every host kernel the packed entry point the runtime calls";
  let description = [{
    For each LLVM function `F` carrying the `attn.kernel` attribute (and its
    C interface `_mlir_ciface_F`), adds
    `void F_entry(void **args, int64_t blockBegin, int64_t blockEnd)` where
    `args[i]` points to the memref descriptor of argument `i`: the host ABI of
    `lib/package/Package.h`, one signature for every kernel.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def AttnSelectTiles : Pass<"attn-select-tiles", "::mlir::func::FuncOp"> {
  let summary = "Pin the tile sizes of every attn.attention without them";
  let description = [{
    Sets `tiles = #attn.tiles<block_m, block_n>` from a heuristic for the
    target on each `attn.attention` that has no `tiles` attribute; existing
    attributes (user or test choices) are kept.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"host\"",
           "Code generation target: host or sm_90a">,
    Option<"tensorCores", "tensor-cores", "std::string",
           /*default=*/"\"auto\"",
           "sm_90a tensor-core kernel: auto (wgmma where it applies, else "
           "mma.sync) or mma-sync (mma.sync everywhere it applies)">,
  ];
}

def ConvertAttnToGPU : Pass<"convert-attn-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower attn.attention into GPU kernels in a gpu.module";
  let description = [{
    Each function whose body is one `attn.attention` becomes a `gpu.func`
    kernel (same name, same arguments as the host kernel minus the block
    range) in the gpu.module `attnc_kernels`, targeting `chip`. A block
    (x, y, z) = (query block, head, batch) of `block_m` threads computes the
    same recurrence as the host kernel, one thread per query row, with the
    working tiles in dynamic shared memory. The function itself is removed.
    f16/bf16 attention with head dims that are multiples of 16 and the
    tiles of a tensor-core kernel (`getMmaConfig` in MmaKernel.h) gets that
    kernel, a warp per 16 query rows: wgmma on 128-byte swizzled shared
    memory (sm_90a) for head dims that are multiples of 64, or mma.sync
    through ldmatrix. Anything else gets the scalar form (BlockBuilder, one
    thread per row, f32 tiles per `GpuBlockLayout`).
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90a\"",
           "NVIDIA chip the gpu.module targets">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def ConvertAttnToTiled : Pass<"convert-attn-to-tiled", "::mlir::func::FuncOp"> {
  let summary = "Lower attn.attention into the tiled online-softmax kernel form";
  let description = [{
    Rewrites a function whose body is one `attn.attention` on its arguments
    into a kernel over memrefs that computes the blocks `[block_begin,
    block_end)` of the grid `(ceil(Nq / block_m), Hq, B)` (x fastest). Each
    block stages its query rows in f32, loops over key tiles carrying the
    accumulator, running max and running sum in f32, classifies every tile
    from the mask (empty tiles are skipped, full tiles pay no mask math),
    inlines the mask and score regions per element, and uses exp2 with
    log2(e) folded into the scale. Tile sizes come from the op's `tiles`
    attribute (run `attn-select-tiles` first).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

#endif // ATTNC_COMPILER_PASSES_TD
