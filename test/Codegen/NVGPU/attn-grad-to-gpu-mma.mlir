// RUN: attn-opt %s --convert-attn-to-gpu --canonicalize --cse | FileCheck %s

// The key/value gradient kernel on mma.sync (pinned mma_sync tiles, 64 x
// 64): a gpu.launch of ceil(Nk / 64) x Hkv x B blocks of 4 warps; K and V
// staged once with cp.async, together with the first query tile; one walk
// over the query tiles of the group's heads, each iteration waiting for
// this tile's copies (one barrier, which also frees the other stage) and
// then copying the next tile's Q and dout (and its lse and delta) into the
// other stage; Sᵀ = K Qᵀ and dPᵀ = V doutᵀ by ldmatrix and
// m16n8k16 mma.sync; dV and dK by Pᵀ and dSᵀ repacked as A fragments
// against ldmatrix.trans of dout and Q; dS read back transposed from
// shared memory for dq, added into the f32 accumulator by v2 reductions.

// CHECK-LABEL: func.func @grad_kv(
// CHECK:         %[[BLOCKS:.*]] = arith.ceildivui %{{.*}}, %c64 : index
// CHECK:         gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[BLOCKS]], %{{.*}} = %c2, %{{.*}} = %c1) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c128, %{{.*}} = %c1, %{{.*}} = %c1) dynamic_shared_memory_size %c28672_i32
// CHECK:           nvvm.cp.async.commit.group
// CHECK:           scf.for
// CHECK:             nvvm.cp.async.commit.group
// CHECK-NEXT:        nvvm.cp.async.wait.group 0
// CHECK-NEXT:        gpu.barrier
// CHECK:               nvgpu.device_async_copy
// CHECK:               nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK:               nvvm.mma.sync
// CHECK:               attngpu.ex2
// CHECK:               nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK:               gpu.barrier
// CHECK:               nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK:               attngpu.red_add {{.*}} : vector<2xf32>
// CHECK-NOT:         gpu.barrier
// CHECK:           nvvm.cp.async.wait.group 0
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
func.func @grad_kv(%q: memref<1x4x?x16xbf16, strided<[?, ?, ?, ?], offset: ?>>, %k: memref<1x2x?x16xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                   %v: memref<1x2x?x16xbf16, strided<[?, ?, ?, ?], offset: ?>>, %l: memref<1x4x?xf32, strided<[?, ?, ?], offset: ?>>,
                   %d: memref<1x4x?xf32, strided<[?, ?, ?], offset: ?>>, %do: memref<1x4x?x16xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                   %acc: memref<1x4x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>, %dk: memref<1x2x?x16xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                   %dv: memref<1x2x?x16xbf16, strided<[?, ?, ?, ?], offset: ?>>, %sum: memref<1x4x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
  %0 = bufferization.to_tensor %q : memref<1x4x?x16xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x4x?x16xbf16>
  %1 = bufferization.to_tensor %k : memref<1x2x?x16xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x2x?x16xbf16>
  %2 = bufferization.to_tensor %v : memref<1x2x?x16xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x2x?x16xbf16>
  %3 = bufferization.to_tensor %l : memref<1x4x?xf32, strided<[?, ?, ?], offset: ?>> to tensor<1x4x?xf32>
  %4 = bufferization.to_tensor %d : memref<1x4x?xf32, strided<[?, ?, ?], offset: ?>> to tensor<1x4x?xf32>
  %5 = bufferization.to_tensor %do : memref<1x4x?x16xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x4x?x16xbf16>
  %6 = bufferization.to_tensor %acc : memref<1x4x?x16xf32, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x4x?x16xf32>
  %dk_t, %dv_t, %sum_t = attn.attention_grad_kv %0, %1, %2, %3, %4, %5, %6 {causal, tiles = #attn.tiles<block_m = 64, block_n = 64, mma = mma_sync>}
      : tensor<1x4x?x16xbf16>, tensor<1x2x?x16xbf16>, tensor<1x2x?x16xbf16>, tensor<1x4x?xf32>, tensor<1x4x?xf32>, tensor<1x4x?x16xbf16>, tensor<1x4x?x16xf32>
      -> tensor<1x2x?x16xbf16>, tensor<1x2x?x16xbf16>, tensor<1x4x?x16xf32>
  bufferization.materialize_in_destination %dk_t in writable %dk : (tensor<1x2x?x16xbf16>, memref<1x2x?x16xbf16, strided<[?, ?, ?, ?], offset: ?>>) -> ()
  bufferization.materialize_in_destination %dv_t in writable %dv : (tensor<1x2x?x16xbf16>, memref<1x2x?x16xbf16, strided<[?, ?, ?, ?], offset: ?>>) -> ()
  bufferization.materialize_in_destination %sum_t in writable %sum : (tensor<1x4x?x16xf32>, memref<1x4x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>) -> ()
  return
}
