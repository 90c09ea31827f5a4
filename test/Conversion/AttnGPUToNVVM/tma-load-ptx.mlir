// RUN: attn-opt %s --pass-pipeline='builtin.module(gpu.module(convert-attngpu-to-nvvm))' \
// RUN:   | mlir-opt --pass-pipeline='builtin.module(gpu.module(convert-gpu-to-nvvm,convert-nvvm-to-llvm,reconcile-unrealized-casts),gpu-module-to-binary{format=isa})' \
// RUN:   | FileCheck %s

// A TMA load compiles to PTX 8.1, the ISA attnc's GPU modules target: the
// shared::cluster form of cp.async.bulk.tensor (the CTA-only form needs PTX
// 8.6). The pipeline after the pass is MLIR's own, as attnc runs it.

module attributes {gpu.container_module} {
  gpu.module @tma [#nvvm.target<chip = "sm_90a", features = "+ptx81">] {
    gpu.func @tma_load(%map: !llvm.ptr, %i: i32, %off: index,
                       %t: memref<64x64xbf16, #gpu.address_space<workgroup>>)
        workgroup(%bytes: memref<64xi8, #gpu.address_space<workgroup>>) kernel {
      %smem = memref.cast %bytes : memref<64xi8, #gpu.address_space<workgroup>> to memref<?xi8, #gpu.address_space<workgroup>>
      %b = attngpu.mbarrier %smem[%off] : memref<?xi8, #gpu.address_space<workgroup>>
      attngpu.tma.load %map[%i, %i], %b to %t : !llvm.ptr, memref<64x64xbf16, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}

// CHECK-LABEL: gpu.binary @tma
// CHECK-SAME: .version 8.1
// CHECK-SAME: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
