// RUN: attn-opt %s --attnc-programs='target=sm_90a' --attnc-gpu-kernels='target=sm_90a' | FileCheck %s --check-prefix=KERNELS
// RUN: attn-opt %s --attnc-programs='target=sm_90a' --attnc-gpu-kernels='target=sm_90a' --attnc-gpu-to-nvvm | FileCheck %s --check-prefix=NVVM

// The sm_90a pipelines on a function of an attention and a cast (what
// attnc runs before PTX). attnc-gpu-kernels: the program keeps its buffers
// and launches, which now carry the grids; the kernel module is a
// gpu.module of one gpu.func per op, with the shared tiles laid out (no
// attngpu.shared_tile is left). Head dim 64 with a value head dim of 32
// takes the wgmma kernel (192 x 128 tiles, three consumer warpgroups and a
// producer: 512 threads; v tiles padded to a whole 64-column panel).

// KERNELS-LABEL: module attributes {gpu.container_module} {
// KERNELS:         func.func @f(
// KERNELS-SAME:      attributes {attnrt.num_inputs = 3 : i64} {
// KERNELS:           %[[T0:.*]] = attnrt.alloc({{.*}}) {name = "t0", shape = ["B", 8, "Nq", 32], slot = 0 : i64} : memref<?x8x?x32xbf16>
// KERNELS:           attnrt.launch @attnc_kernels::@f_attention0 grid(%{{.*}}, %{{.*}}, %{{.*}}) (%{{.*}}, %{{.*}}, %{{.*}}, %[[T0]], %{{.*}})
// KERNELS:           attnrt.launch @attnc_kernels::@f_cast1 grid(%{{.*}}, %{{.*}}, %{{.*}}) (%[[T0]], %{{.*}})
// KERNELS-NEXT:      attnrt.dealloc %[[T0]]
// KERNELS:         gpu.module @attnc_kernels [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx81">] {
// KERNELS:           gpu.func @f_attention0({{.*}}) kernel attributes {attngpu.dynamic_shared_memory_bytes = 122968 : i64, attngpu.tensor_maps = [{arg = 0 : i64, box = array<i64: 64, 192, 1, 1>, {{.*}}], known_block_size = array<i32: 512, 1, 1>} {
// KERNELS-NOT:         attngpu.shared_tile
// KERNELS:             attngpu.wgmma.mma_async {{.*}} n = 32 : i64
// KERNELS:           gpu.func @f_cast1({{.*}}) kernel attributes {attngpu.dynamic_shared_memory_bytes = 0 : i64, known_block_size = array<i32: 256, 1, 1>} {
// KERNELS-NOT:     attngpu.shared_tile
// KERNELS-NOT:     attn.attention
// KERNELS-NOT:     attn.cast

// attnc-gpu-to-nvvm: the kernels are LLVM functions marked as NVVM kernels
// with their block size, no attngpu op is left, and the dynamic shared
// memory is external and 1024-byte aligned.

// NVVM-LABEL: gpu.module @attnc_kernels
// NVVM-DAG:     llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// NVVM-DAG:     llvm.func @f_attention0({{.*}}) attributes {attngpu.dynamic_shared_memory_bytes = 122968 : i64, attngpu.tensor_maps = [{{.*}}], gpu.kernel, gpu.known_block_size = array<i32: 512, 1, 1>, nvvm.kernel, nvvm.maxntid = array<i32: 512, 1, 1>}
// NVVM-DAG:     llvm.func @f_cast1({{.*}}) attributes {attngpu.dynamic_shared_memory_bytes = 0 : i64, gpu.kernel, gpu.known_block_size = array<i32: 256, 1, 1>, nvvm.kernel, nvvm.maxntid = array<i32: 256, 1, 1>}
// NVVM-NOT:     attngpu.ex2
// NVVM-NOT:     gpu.func
func.func @f(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x32xbf16>)
    -> (tensor<?x8x?x32xf32>, tensor<?x8x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {causal}
      : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x32xbf16>
      -> tensor<?x8x?x32xbf16>, tensor<?x8x?xf32>
  %c = attn.cast %o {scale = 2.0 : f32} : tensor<?x8x?x32xbf16> to tensor<?x8x?x32xf32>
  return %c, %l : tensor<?x8x?x32xf32>, tensor<?x8x?xf32>
}
