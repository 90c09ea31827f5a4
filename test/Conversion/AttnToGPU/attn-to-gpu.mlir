// RUN: attn-opt %s -split-input-file --convert-attn-to-gpu --canonicalize --cse | FileCheck %s

// The kernel-form function becomes a gpu.func in the attnc_kernels module:
// block ids are (query block, head, batch), one thread per query row, the f32
// tiles carved from dynamic shared memory with per-row tiles padded by one
// element, copies spread over the block's threads between barriers, and each
// thread's row guarded by thread < rows.

// CHECK-LABEL: gpu.module @attnc_kernels [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">]
// CHECK:         gpu.func @causal_gqa(
// CHECK-SAME:      %[[Q:[a-z0-9]+]]: memref<2x8x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK-SAME:      %[[K:[a-z0-9]+]]: memref<2x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK-SAME:      %{{.*}}: memref<2x8x?xf32, strided<[?, ?, ?], offset: ?>>)
// CHECK-SAME:      kernel attributes {known_block_size = array<i32: 16, 1, 1>}
// CHECK-DAG:       %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:       %[[C16:.*]] = arith.constant 16 : index
// CHECK:           %[[TID:.*]] = gpu.thread_id  x
// CHECK:           %[[QBLOCK:.*]] = gpu.block_id  x
// CHECK:           %[[HEAD:.*]] = gpu.block_id  y
// CHECK:           %[[BATCH:.*]] = gpu.block_id  z
// CHECK:           %[[SMEM:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK:           %[[Q_TILE:.*]] = memref.view %[[SMEM]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16x65xf32, #gpu.address_space<workgroup>>
// CHECK:           memref.view %[[SMEM]][%{{.*}}][] : {{.*}} to memref<32x64xf32, #gpu.address_space<workgroup>>
// CHECK:           %[[HEAD_KV:.*]] = arith.divui %[[HEAD]], %[[C4]] : index
// CHECK:           scf.for %{{.*}} = %[[TID]] to %{{.*}} step %[[C16]]
// CHECK:             memref.load %[[Q]][%[[BATCH]], %[[HEAD]], %{{.*}}, %{{.*}}]
// CHECK:             arith.extf %{{.*}} : bf16 to f32
// CHECK:           gpu.barrier
// CHECK:           %[[OWNS_ROW:.*]] = arith.cmpi ult, %[[TID]], %{{.*}} : index
// CHECK:           scf.if %[[OWNS_ROW]] {
// CHECK:           scf.for
// CHECK:             scf.if
// CHECK:               gpu.barrier
// CHECK:               memref.load %[[K]][%[[BATCH]], %[[HEAD_KV]], %{{.*}}, %{{.*}}]
// CHECK:               gpu.barrier
// CHECK:               scf.if %[[OWNS_ROW]] {
// CHECK:                 memref.load %[[Q_TILE]][%[[TID]], %{{.*}}]
// CHECK:         gpu.return
// CHECK-NOT:   func.func
func.func @causal_gqa(%q: tensor<2x8x?x64xbf16>, %k: tensor<2x2x?x64xbf16>, %v: tensor<2x2x?x32xbf16>)
    -> (tensor<2x8x?x32xbf16>, tensor<2x8x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {causal, tiles = #attn.tiles<block_m = 16, block_n = 32>}
      : tensor<2x8x?x64xbf16>, tensor<2x2x?x64xbf16>, tensor<2x2x?x32xbf16>
      -> tensor<2x8x?x32xbf16>, tensor<2x8x?xf32>
  return %o, %l : tensor<2x8x?x32xbf16>, tensor<2x8x?xf32>
}

// -----

// Every kernel of a module lands in the one gpu.module, under its name.

// CHECK-LABEL: gpu.module @attnc_kernels
// CHECK:         gpu.func @first(
// CHECK:         gpu.func @second(
func.func @first(%q: tensor<1x1x?x16xf32>) -> tensor<1x1x?x16xf32> {
  %o, %l = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 8, block_n = 8>}
      : tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32>
      -> tensor<1x1x?x16xf32>, tensor<1x1x?xf32>
  return %o : tensor<1x1x?x16xf32>
}
func.func @second(%q: tensor<1x1x?x16xf32>) -> tensor<1x1x?xf32> {
  %o, %l = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 8, block_n = 8>}
      : tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32>
      -> tensor<1x1x?x16xf32>, tensor<1x1x?xf32>
  return %l : tensor<1x1x?xf32>
}
