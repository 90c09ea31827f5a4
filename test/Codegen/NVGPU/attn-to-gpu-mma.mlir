// RUN: attn-opt %s -split-input-file --convert-attn-to-gpu --canonicalize --cse | FileCheck %s

// The mma.sync kernel (mma = mma_sync): a warp per 16 query rows; the Q tile
// and two stages of K/V tiles are attngpu.shared_tile views in the input
// type with rows padded by 8 elements (their layout is applied later, by
// attngpu-lower-shared-tiles); the Q tile's copy is committed alone, then
// the first K/V tile's; in the key loop each tile waits for its copies and
// a barrier, and the next tile is copied with cp.async (16-byte copies,
// zero-filled past the end) while this one is used; ldmatrix feeds
// m16n8k16 mma.sync with f32 accumulators; row maxima are reduced across
// the quad with xor shuffles, exponents use attngpu.ex2, and V is read
// through ldmatrix.trans for P V. Head dim 128: 64-row blocks.

// CHECK-LABEL: func.func @causal(
// CHECK-SAME:    %[[Q:[a-z0-9]+]]: memref<2x8x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>
// CHECK-DAG:     %[[C128:.*]] = arith.constant 128 : index
// CHECK-DAG:     %[[SHARED:.*]] = arith.constant 87040 : i32
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[K_STAGE0:.*]] = arith.constant 17408 : index
// CHECK-DAG:     %[[V_STAGE0:.*]] = arith.constant 52224 : index
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}}) threads(%[[TID:[a-z0-9_]+]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (%{{[a-z0-9_]+}} = %[[C128]], %{{[a-z0-9_]+}} = %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} = %{{[a-z0-9_]+}})
// CHECK-SAME:      dynamic_shared_memory_size %[[SHARED]] {
// CHECK:           %[[SMEM:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK:           %[[QS:.*]] = attngpu.shared_tile %[[SMEM]][%[[C0]]] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x128xbf16, strided<[136, 1]>, #gpu.address_space<workgroup>>
// CHECK:           nvgpu.device_async_copy %{{.*}}[%{{.*}}], %[[QS]][%{{.*}}, %{{.*}}], 8, %{{.*}} {bypassL1} : memref<?xbf16, strided<[1], offset: ?>> to memref<64x128xbf16, strided<[136, 1]>, #gpu.address_space<workgroup>>
// CHECK:           nvvm.cp.async.commit.group
// CHECK-NOT:       gpu.barrier
// CHECK:           %[[KS0:.*]] = attngpu.shared_tile %[[SMEM]][%[[K_STAGE0]]]
// CHECK:           nvgpu.device_async_copy %{{.*}}, %[[KS0]][%{{.*}}, %{{.*}}], 8, %{{.*}} {bypassL1}
// CHECK:           %[[VS0:.*]] = attngpu.shared_tile %[[SMEM]][%[[V_STAGE0]]]
// CHECK:           nvgpu.device_async_copy %{{.*}}, %[[VS0]][%{{.*}}, %{{.*}}], 8, %{{.*}} {bypassL1}
// CHECK:           nvvm.cp.async.commit.group
// CHECK:           scf.for {{.*}} iter_args(
// CHECK:             nvvm.cp.async.wait.group 0
// CHECK-NEXT:        gpu.barrier
// CHECK:             attngpu.shared_tile
// CHECK:             nvgpu.device_async_copy
// CHECK:             nvvm.cp.async.commit.group
// CHECK:             %[[KS:.*]] = attngpu.shared_tile %[[SMEM]][%{{.*}}] : {{.*}} to memref<64x128xbf16, strided<[136, 1]>, #gpu.address_space<workgroup>>
// CHECK:             nvgpu.ldmatrix %[[QS]][{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<64x128xbf16, strided<[136, 1]>, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK:             nvgpu.ldmatrix %[[KS]][{{.*}}] {numTiles = 4 : i32, transpose = false}
// CHECK:             nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>
// CHECK-SAME:          multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// CHECK-SAME:          -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK:             gpu.shuffle  xor %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK:             attngpu.ex2
// CHECK:             %[[VS:.*]] = attngpu.shared_tile %[[SMEM]][%{{.*}}] : {{.*}} to memref<64x128xbf16, strided<[136, 1]>, #gpu.address_space<workgroup>>
// CHECK:             nvgpu.ldmatrix %[[VS]][{{.*}}] {numTiles = 4 : i32, transpose = true}
// CHECK:             scf.yield
// CHECK:           gpu.terminator
// CHECK-NOT:     attngpu.wgmma
module @attnc_kernels {
  func.func @causal(%q: memref<2x8x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                    %k: memref<2x8x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                    %v: memref<2x8x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                    %out: memref<2x8x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                    %lse: memref<2x8x?xf32, strided<[?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %q : memref<2x8x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<2x8x?x128xbf16>
    %1 = bufferization.to_tensor %k : memref<2x8x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<2x8x?x128xbf16>
    %2 = bufferization.to_tensor %v : memref<2x8x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<2x8x?x128xbf16>
    %o, %l = attn.attention %0, %1, %2 {causal, tiles = #attn.tiles<block_m = 64, block_n = 64, mma = mma_sync>}
        : tensor<2x8x?x128xbf16>, tensor<2x8x?x128xbf16>, tensor<2x8x?x128xbf16> -> tensor<2x8x?x128xbf16>, tensor<2x8x?xf32>
    bufferization.materialize_in_destination %o in writable %out : (tensor<2x8x?x128xbf16>, memref<2x8x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>) -> ()
    bufferization.materialize_in_destination %l in writable %lse : (tensor<2x8x?xf32>, memref<2x8x?xf32, strided<[?, ?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// Head dim 64 (f16): 128-row blocks of eight warps, rows padded to 72
// elements, mma.sync on f16 pairs.

// CHECK-LABEL: func.func @narrow(
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG:     %[[SHARED:.*]] = arith.constant 55296 : i32
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}}) threads({{.*}}) in (%{{[a-z0-9_]+}} = %[[C256]], {{.*}}) dynamic_shared_memory_size %[[SHARED]] {
// CHECK:           attngpu.shared_tile %{{.*}}[%{{.*}}] : {{.*}} to memref<128x64xf16, strided<[72, 1]>, #gpu.address_space<workgroup>>
// CHECK:           attngpu.shared_tile %{{.*}}[%{{.*}}] : {{.*}} to memref<64x64xf16, strided<[72, 1]>, #gpu.address_space<workgroup>>
// CHECK:           nvvm.mma.sync {{.*}} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
module @attnc_kernels {
  func.func @narrow(%q: memref<1x4x?x64xf16, strided<[?, ?, ?, ?], offset: ?>>,
                    %out: memref<1x4x?x64xf16, strided<[?, ?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %q : memref<1x4x?x64xf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x4x?x64xf16>
    %o, %l = attn.attention %0, %0, %0 {tiles = #attn.tiles<block_m = 128, block_n = 64, mma = mma_sync>}
        : tensor<1x4x?x64xf16>, tensor<1x4x?x64xf16>, tensor<1x4x?x64xf16> -> tensor<1x4x?x64xf16>, tensor<1x4x?xf32>
    bufferization.materialize_in_destination %o in writable %out : (tensor<1x4x?x64xf16>, memref<1x4x?x64xf16, strided<[?, ?, ?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// A mask reading captured document ids. Before the key loop the block
// lists its non-empty key tiles in shared memory (after the tiles, 1023
// entries and a count): warp w classifies tiles w, w + 8, ..., its lanes
// sharing the reads of a capture range (lane l reads elements l, l + 32,
// ..., four loads per step) and a butterfly of xor shuffles giving every
// lane the smallest and largest id; then the first warp compacts the
// entries with a ballot and popc, and the key loop runs over the list.
// An entry says whether its tile is partial and whether the region may
// block in it.
// Where the range does not fit the list, the loop classifies each tile.

// CHECK-LABEL: func.func @captured_documents(
// CHECK-SAME:    %{{[a-z0-9]+}}: memref<1x4x?x64xf16, {{.*}}>, %[[DOC:[a-z0-9]+]]: memref<1x?xi32
// CHECK:         gpu.launch
// CHECK:           %[[LANE:.*]] = arith.remui %{{.*}}, %c32 : index
// CHECK:           %[[FITS:.*]] = arith.cmpi ule, %{{.*}}, %c1023 : index
// CHECK:           scf.if %[[FITS]] {
// CHECK:             %[[LIST:.*]] = memref.view %{{.*}}[%c55296][] : {{.*}} to memref<1024xi32, #gpu.address_space<workgroup>>
// CHECK:             scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %c8 {
// CHECK:               scf.for %{{.*}} = %[[LANE]] to %{{.*}} step %c128 iter_args({{.*}}) -> (i32, i32) {
// CHECK-COUNT-4:         memref.load %[[DOC]]
// CHECK:               gpu.shuffle  xor
// CHECK:               memref.store %{{.*}}, %[[LIST]][%[[T]]]
// CHECK:             gpu.barrier
// CHECK:               nvvm.vote.sync  ballot
// CHECK:               math.ctpop
// CHECK:             memref.store %{{.*}}, %[[LIST]][%c1023]
// CHECK:             gpu.barrier
// CHECK:           scf.for %{{.*}} = %c0 to %{{.*}} step %c1 iter_args(
// CHECK:             %[[CLASS:.*]]:3 = scf.if %[[FITS]] -> (i1, i1, i1) {
// CHECK:               %[[REGION_BIT:.*]] = arith.shrui %{{.*}}, %c1_i32 : i32
// CHECK:               arith.trunci %[[REGION_BIT]] : i32 to i1
// CHECK:             } else {
// CHECK:               scf.for %{{.*}} = %[[LANE]] to %{{.*}} step %c128 iter_args({{.*}}) -> (i32, i32) {
// CHECK:                 memref.load %[[DOC]]
// CHECK:               gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : i32
// CHECK:               gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : i32
// A partial tile that the region allows whole reads no capture.
// CHECK:             scf.if %[[CLASS]]#2 -> (f32,
// CHECK:               memref.load %[[DOC]]
// CHECK:             } else {
// CHECK-NOT:           memref.load %[[DOC]]
// CHECK:             }
module @attnc_kernels {
  func.func @captured_documents(%q: memref<1x4x?x64xf16, strided<[?, ?, ?, ?], offset: ?>>,
                                %doc: memref<1x?xi32, strided<[?, ?], offset: ?>>,
                                %out: memref<1x4x?x64xf16, strided<[?, ?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %q : memref<1x4x?x64xf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x4x?x64xf16>
    %d = bufferization.to_tensor %doc : memref<1x?xi32, strided<[?, ?], offset: ?>> to tensor<1x?xi32>
    %o, %l = attn.attention %0, %0, %0 captures(%d : tensor<1x?xi32>) {tiles = #attn.tiles<block_m = 128, block_n = 64, mma = mma_sync>}
        : tensor<1x4x?x64xf16>, tensor<1x4x?x64xf16>, tensor<1x4x?x64xf16> -> tensor<1x4x?x64xf16>, tensor<1x4x?xf32>
      mask {
      ^bb0(%b: index, %h: index, %qi: index, %ki: index, %ids: tensor<1x?xi32>):
        %qd = tensor.extract %ids[%b, %qi] : tensor<1x?xi32>
        %kd = tensor.extract %ids[%b, %ki] : tensor<1x?xi32>
        %same = arith.cmpi eq, %qd, %kd : i32
        attn.yield %same : i1
      }
    bufferization.materialize_in_destination %o in writable %out : (tensor<1x4x?x64xf16>, memref<1x4x?x64xf16, strided<[?, ?, ?, ?], offset: ?>>) -> ()
    return
  }
}
