// RUN: attn-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(gpu.module(convert-attngpu-to-nvvm))'

// What convert-attngpu-to-nvvm refuses. Every other attngpu op that
// verifies has a lowering; operand types the lowering cannot take (e.g. a
// non-f32 value through wgmma.wait_group) are rejected by the op verifiers
// (test/Dialect/AttnGPU/invalid.mlir).

// Shared tiles are laid out by attngpu-lower-shared-tiles, which must run
// first.
gpu.module @shared_tile {
  func.func @shared_tile(%smem: memref<?xi8, #gpu.address_space<workgroup>>, %off: index) {
    // expected-error @below {{'attngpu.shared_tile' op must be lowered by attngpu-lower-shared-tiles before convert-attngpu-to-nvvm}}
    %t = attngpu.shared_tile %smem[%off]
        : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
    return
  }
}

// -----

// A tensor map is a kernel parameter once attn-outline-gpu-kernels has run.
gpu.module @tensor_map {
  func.func @tensor_map(%k: memref<?x16x?x128xbf16>) {
    // expected-error @below {{'attngpu.tensor_map' op must become a kernel parameter by attn-outline-gpu-kernels before convert-attngpu-to-nvvm}}
    %m, %ok = attngpu.tensor_map %k {box = array<i64: 64, 128, 1, 1>, swizzle_bytes = 128 : i64} : memref<?x16x?x128xbf16>
    return
  }
}
