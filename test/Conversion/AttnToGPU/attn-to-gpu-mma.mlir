// RUN: attn-opt %s --convert-attn-to-gpu --canonicalize --cse | FileCheck %s

// f16/bf16 attention with head dims that are multiples of 16 and 64 x 64 tiles
// gets the tensor-core kernel: 128 threads (four warps of 16 rows), q/k/v
// tiles in the input type with rows padded by 8 elements, ldmatrix feeding
// m16n8k16 mma.sync with f32 accumulators, the row max reduced across the
// quad with xor shuffles, and V read through ldmatrix.trans for P V.

// CHECK-LABEL: gpu.module @attnc_kernels
// CHECK:         gpu.func @causal(
// CHECK-SAME:      kernel attributes {known_block_size = array<i32: 128, 1, 1>}
// CHECK:           %[[SMEM:.*]] = gpu.dynamic_shared_memory
// CHECK:           %[[QS:.*]] = memref.view %[[SMEM]][%{{.*}}][] : {{.*}} to memref<64x136xbf16, #gpu.address_space<workgroup>>
// CHECK:           %[[KS:.*]] = memref.view %[[SMEM]][%{{.*}}][] : {{.*}} to memref<64x136xbf16, #gpu.address_space<workgroup>>
// CHECK:           %[[VS:.*]] = memref.view %[[SMEM]][%{{.*}}][] : {{.*}} to memref<64x136xbf16, #gpu.address_space<workgroup>>
// CHECK:           gpu.barrier
// CHECK:           scf.for {{.*}} iter_args(
// CHECK:             nvgpu.ldmatrix %[[QS]][{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<64x136xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK:             nvgpu.ldmatrix %[[KS]][{{.*}}] {numTiles = 2 : i32, transpose = false}
// CHECK:             nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>
// CHECK-SAME:          multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// CHECK:             gpu.shuffle  xor %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK:             math.exp2
// CHECK:             nvgpu.ldmatrix %[[VS]][{{.*}}] {numTiles = 2 : i32, transpose = true}
// CHECK:         gpu.return
func.func @causal(%q: tensor<2x8x?x128xbf16>, %k: tensor<2x8x?x128xbf16>, %v: tensor<2x8x?x128xbf16>)
    -> (tensor<2x8x?x128xbf16>, tensor<2x8x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {causal, tiles = #attn.tiles<block_m = 64, block_n = 64>}
      : tensor<2x8x?x128xbf16>, tensor<2x8x?x128xbf16>, tensor<2x8x?x128xbf16>
      -> tensor<2x8x?x128xbf16>, tensor<2x8x?xf32>
  return %o, %l : tensor<2x8x?x128xbf16>, tensor<2x8x?xf32>
}
