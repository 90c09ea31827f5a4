// RUN: attn-opt %s -split-input-file --convert-attn-to-gpu --canonicalize --cse | FileCheck %s

// f16/bf16 attention with head dims that are multiples of 16 gets the
// tensor-core kernel: a warp per 16 query rows, the Q tile and two stages of
// K/V tiles in the input type with rows padded by 8 elements, the next key
// tile copied with cp.async (16-byte copies, zero-filled past the end) while
// the current one is used, ldmatrix feeding m16n8k16 mma.sync with f32
// accumulators, row maxima reduced across the quad with xor shuffles, and V
// read through ldmatrix.trans for P V, two fragments per ldmatrix.x4. Head
// dim 128: 64-row blocks.

// CHECK-LABEL: gpu.module @attnc_kernels
// CHECK:         gpu.func @causal(
// CHECK-SAME:      kernel attributes {known_block_size = array<i32: 128, 1, 1>}
// CHECK:           %[[SMEM:.*]] = gpu.dynamic_shared_memory
// CHECK:           %[[QS:.*]] = memref.view %[[SMEM]][%{{.*}}][] : {{.*}} to memref<64x136xbf16, #gpu.address_space<workgroup>>
// CHECK:           nvgpu.device_async_copy {{.*}}, 8, %{{.*}} {bypassL1} : memref<?xbf16, strided<[1], offset: ?>> to memref<64x136xbf16, #gpu.address_space<workgroup>>
// CHECK:           nvvm.cp.async.commit.group
// CHECK-NOT:       gpu.barrier
// CHECK:           nvgpu.device_async_copy {{.*}}, 8, %{{.*}} {bypassL1} : memref<?xbf16, strided<[1], offset: ?>> to memref<64x136xbf16, #gpu.address_space<workgroup>>
// CHECK:           nvvm.cp.async.commit.group
// CHECK:           scf.for {{.*}} iter_args(
// CHECK:             nvvm.cp.async.wait.group 0
// CHECK:             gpu.barrier
// CHECK:             nvgpu.device_async_copy
// CHECK:             nvvm.cp.async.commit.group
// CHECK:             %[[KS:.*]] = memref.view %[[SMEM]][%{{.*}}][] : {{.*}} to memref<64x136xbf16, #gpu.address_space<workgroup>>
// CHECK:             nvgpu.ldmatrix %[[QS]][{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<64x136xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK:             nvgpu.ldmatrix %[[KS]][{{.*}}] {numTiles = 4 : i32, transpose = false}
// CHECK:             nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>
// CHECK-SAME:          multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// CHECK:             gpu.shuffle  xor %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK:             llvm.inline_asm "ex2.approx.ftz.f32 $0, $1;", "=f,f"
// CHECK:             %[[VS:.*]] = memref.view %[[SMEM]][%{{.*}}][] : {{.*}} to memref<64x136xbf16, #gpu.address_space<workgroup>>
// CHECK:             nvgpu.ldmatrix %[[VS]][{{.*}}] {numTiles = 4 : i32, transpose = true}
// CHECK:         gpu.return
func.func @causal(%q: tensor<2x8x?x128xbf16>, %k: tensor<2x8x?x128xbf16>, %v: tensor<2x8x?x128xbf16>)
    -> (tensor<2x8x?x128xbf16>, tensor<2x8x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {causal, tiles = #attn.tiles<block_m = 64, block_n = 64>}
      : tensor<2x8x?x128xbf16>, tensor<2x8x?x128xbf16>, tensor<2x8x?x128xbf16>
      -> tensor<2x8x?x128xbf16>, tensor<2x8x?xf32>
  return %o, %l : tensor<2x8x?x128xbf16>, tensor<2x8x?xf32>
}

// -----

// Head dim 64 (f16): 128-row blocks of eight warps, mma.sync on f16 pairs.

// CHECK-LABEL: gpu.module @attnc_kernels
// CHECK:         gpu.func @narrow(
// CHECK-SAME:      kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// CHECK:           memref.view %{{.*}}[%{{.*}}][] : {{.*}} to memref<128x72xf16, #gpu.address_space<workgroup>>
// CHECK:           nvvm.mma.sync {{.*}} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
func.func @narrow(%q: tensor<1x4x?x64xf16>) -> tensor<1x4x?x64xf16> {
  %o, %l = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 128, block_n = 64>}
      : tensor<1x4x?x64xf16>, tensor<1x4x?x64xf16>, tensor<1x4x?x64xf16>
      -> tensor<1x4x?x64xf16>, tensor<1x4x?xf32>
  return %o : tensor<1x4x?x64xf16>
}
