// RUN: attn-opt %s -split-input-file --convert-attn-to-gpu --canonicalize --cse | FileCheck %s

// The warpgroup kernel (mma = wgmma), built from attngpu ops: two
// warpgroups of 64 query rows share each 128-key tile (head dim 128).
// Tiles are attngpu.shared_tile views with the 128-byte swizzle, each at a
// multiple of 1024 bytes: Q, two K stages, four V stages, then the
// mbarriers. One thread initializes them (256 arrivals per phase: a tile's
// copies landed, both warpgroups are done with a K or a V stage), fences
// the initialization and the block synchronizes once; afterwards no
// block-wide barrier: each tile waits on its "full" mbarrier (the copies
// arrive through cp.async.mbarrier.arrive.noinc) and fences the async
// proxy, and the copies of a later tile wait until a stage is free. Each
// tile issues S = Q Kᵀ from two descriptors and the previous tile's P V
// (P from registers, V transposed) as two commit groups, waits for S only,
// runs the softmax (xor shuffles, ex2) while P V runs and waits for it
// before packing the next P; the row max moves only when a tile's exceeds
// it by more than 8 (log2 units), and a warp rescales O only when one of
// its rows' max moved. The last P V runs after the loop. Causal
// blocks run last first (a group of heads at a time). The output takes a
// lane's two adjacent columns per store where its layout allows (unit inner
// stride, even strides, a 4-byte aligned start), else element stores.

// CHECK-LABEL: func.func @causal(
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG:     %[[SHARED:.*]] = arith.constant 229456 : i32
// CHECK-DAG:     %[[ARRIVALS:.*]] = arith.constant 256 : i32
// CHECK-DAG:     %[[SLACK:.*]] = arith.constant 8.000000e+00 : f32
// CHECK:         gpu.launch blocks(%[[BX:[a-z0-9_]+]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (%[[GX:[a-z0-9_]+]] = {{.*}}) threads(%[[TID:[a-z0-9_]+]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (%{{[a-z0-9_]+}} = %[[C256]],
// CHECK-SAME:      dynamic_shared_memory_size %[[SHARED]] {
// CHECK:           arith.addi %[[BX]], %{{.*}} : index
// CHECK:           arith.minui
// CHECK:           arith.subi %[[GX]], %{{.*}} : index
// CHECK:           %[[SMEM:.*]] = gpu.dynamic_shared_memory
// CHECK:           %[[FIRST_THREAD:.*]] = arith.cmpi eq, %[[TID]], %{{.*}} : index
// CHECK-NEXT:      scf.if %[[FIRST_THREAD]] {
// CHECK-COUNT-8:     attngpu.mbarrier.init %{{.*}}, %[[ARRIVALS]]
// CHECK:           }
// CHECK-NEXT:      attngpu.mbarrier.fence_init
// CHECK-NEXT:      gpu.barrier
// CHECK:           %[[QS:.*]] = attngpu.shared_tile %[[SMEM]][%{{.*}}] {swizzle_bytes = 128 : i64} : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x128xbf16, #gpu.address_space<workgroup>>
// CHECK:           nvgpu.device_async_copy {{.*}}, %[[QS]][{{.*}}], 8, {{.*}} to memref<128x128xbf16, #gpu.address_space<workgroup>>
// CHECK:           nvvm.cp.async.commit.group
// CHECK:           attngpu.shared_tile %[[SMEM]][%{{.*}}] {swizzle_bytes = 128 : i64} : {{.*}} to memref<128x128xbf16, #gpu.address_space<workgroup>>
// CHECK:           %[[FULL0:.*]] = attngpu.mbarrier %[[SMEM]][%{{.*}}]
// CHECK:           attngpu.mbarrier.arrive_cp_async %[[FULL0]]
// CHECK:           scf.for {{.*}} iter_args(
// CHECK-NOT:         gpu.barrier
// CHECK:             %[[FULL:.*]] = attngpu.mbarrier %[[SMEM]][%{{.*}}]
// CHECK:             attngpu.mbarrier.wait %[[FULL]], %{{.*}}
// CHECK-NEXT:        attngpu.fence_proxy_async
// CHECK:             attngpu.mbarrier.wait
// CHECK:             attngpu.mbarrier.wait
// CHECK:             nvgpu.device_async_copy {{.*}} to memref<128x128xbf16, #gpu.address_space<workgroup>>
// CHECK:             attngpu.mbarrier.arrive_cp_async
// CHECK:             %[[KS:.*]] = attngpu.shared_tile %[[SMEM]][%{{.*}}] {swizzle_bytes = 128 : i64}
// CHECK:             %[[QD:.*]] = attngpu.wgmma.descriptor %[[QS]][%{{.*}}] {leading_bytes = 16 : i64, stride_bytes = 1024 : i64, swizzle_bytes = 128 : i64} : memref<128x128xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:        %[[KD:.*]] = attngpu.wgmma.descriptor %[[KS]][%{{.*}}] {leading_bytes = 16 : i64, stride_bytes = 1024 : i64, swizzle_bytes = 128 : i64}
// CHECK:             %[[VS:.*]] = attngpu.shared_tile %[[SMEM]][%{{.*}}] {swizzle_bytes = 128 : i64}
// CHECK-NEXT:        %[[VD:.*]] = attngpu.wgmma.descriptor %[[VS]][%{{.*}}] {leading_bytes = 16384 : i64, stride_bytes = 1024 : i64, swizzle_bytes = 128 : i64}
// CHECK:             attngpu.wgmma.fence
// CHECK-NEXT:        %[[S:.*]] = attngpu.wgmma.mma_async a_desc(%[[QD]]) b_desc(%[[KD]]) {a_offsets = array<i64: 0, 32, 64, 96, 16384, 16416, 16448, 16480>, b_offsets = array<i64: 0, 32, 64, 96, 16384, 16416, 16448, 16480>, element_type = bf16, n = 128 : i64} -> vector<64xf32>
// CHECK-NEXT:        attngpu.wgmma.commit_group
// CHECK-NEXT:        %[[PV:.*]] = attngpu.wgmma.mma_async a_regs({{.*}} : vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>) b_desc(%[[VD]]) acc(%{{.*}} : vector<64xf32>) {b_offsets = array<i64: 0, 2048, 4096, 6144, 8192, 10240, 12288, 14336>, element_type = bf16, n = 128 : i64, transpose_b} -> vector<64xf32>
// CHECK-NEXT:        attngpu.wgmma.commit_group
// CHECK-NEXT:        %[[S_DONE:.*]] = attngpu.wgmma.wait_group 1(%[[S]]) : vector<64xf32>
// CHECK:             attngpu.mbarrier.arrive
// CHECK:             gpu.shuffle  xor
// CHECK:             %[[RAISED:.*]] = arith.maximumf %[[OLD_MAX:[a-z0-9_]+]], %[[TILE_MAX:[a-z0-9_]+]] : f32
// CHECK-NEXT:        %[[BOUND:.*]] = arith.addf %[[OLD_MAX]], %[[SLACK]] : f32
// CHECK-NEXT:        %[[WITHIN:.*]] = arith.cmpf ole, %[[TILE_MAX]], %[[BOUND]] : f32
// CHECK-NEXT:        %[[NEW_MAX:.*]] = arith.select %[[WITHIN]], %[[OLD_MAX]], %[[RAISED]] : f32
// CHECK:             attngpu.ex2
// CHECK:             %[[WAITED:.*]]:65 = attngpu.wgmma.wait_group 0(%[[PV]], {{.*}}) : vector<64xf32>, f32
// CHECK:             arith.truncf %{{.*}} : f32 to bf16
// CHECK:             %[[MOVED:.*]] = arith.cmpf une, %[[OLD_MAX]], %[[NEW_MAX]] : f32
// CHECK-NEXT:        %[[EITHER:.*]] = arith.ori %[[MOVED]], %{{.*}} : i1
// CHECK-NEXT:        %[[ANY:.*]] = nvvm.vote.sync  any %{{.*}}, %[[EITHER]] -> i1
// CHECK-NEXT:        %[[O:.*]]:64 = scf.if %[[ANY]] -> (f32,
// CHECK-COUNT-64:      arith.mulf
// CHECK:             } else {
// CHECK-NEXT:          scf.yield
// CHECK:             attngpu.mbarrier.arrive
// CHECK:             scf.yield
// CHECK:           attngpu.wgmma.fence
// CHECK-NEXT:      attngpu.wgmma.mma_async a_regs({{.*}}) b_desc(%{{.*}}) acc(%{{.*}} : vector<64xf32>) {{{.*}}transpose_b} -> vector<64xf32>
// CHECK-NEXT:      attngpu.wgmma.commit_group
// CHECK-NEXT:      attngpu.wgmma.wait_group 0
// CHECK:           math.log2
// CHECK:           %[[OUT_ROWS:.*]] = memref.reinterpret_cast %[[OUT:[a-z0-9_]+]] to offset: [%{{.*}}], sizes: [2147483647], strides: [1]
// CHECK:           scf.if %{{.*}} {
// CHECK-NEXT:        scf.if %{{.*}} {
// CHECK-COUNT-16:      vector.store %{{.*}}, %[[OUT_ROWS]][%{{.*}}] {alignment = 4 : i64} : memref<?xbf16, strided<[1], offset: ?>>, vector<2xbf16>
// CHECK:           } else {
// CHECK-NEXT:        scf.if %{{.*}} {
// CHECK-COUNT-32:      memref.store %{{.*}}, %[[OUT]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<2x8x?x128xbf16
// CHECK:           gpu.terminator
// CHECK-NOT:     nvvm.mma.sync
// CHECK-NOT:     nvgpu.ldmatrix
module @attnc_kernels {
  func.func @causal(%q: memref<2x8x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                    %k: memref<2x8x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                    %v: memref<2x8x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                    %out: memref<2x8x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                    %lse: memref<2x8x?xf32, strided<[?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %q : memref<2x8x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<2x8x?x128xbf16>
    %1 = bufferization.to_tensor %k : memref<2x8x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<2x8x?x128xbf16>
    %2 = bufferization.to_tensor %v : memref<2x8x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<2x8x?x128xbf16>
    %o, %l = attn.attention %0, %1, %2 {causal, tiles = #attn.tiles<block_m = 128, block_n = 128, mma = wgmma>}
        : tensor<2x8x?x128xbf16>, tensor<2x8x?x128xbf16>, tensor<2x8x?x128xbf16> -> tensor<2x8x?x128xbf16>, tensor<2x8x?xf32>
    bufferization.materialize_in_destination %o in writable %out : (tensor<2x8x?x128xbf16>, memref<2x8x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>) -> ()
    bufferization.materialize_in_destination %l in writable %lse : (tensor<2x8x?xf32>, memref<2x8x?xf32, strided<[?, ?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// Head dim 256 (f16): 64-key tiles, S from m64n64 steps and P V from
// m64n256 steps; the V descriptor steps 64 keys x 128 bytes per panel; four
// V stages do not fit the 227 KiB of an sm_90a block, so three are used
// (229376 bytes of tiles, 7 mbarriers).

// CHECK-LABEL: func.func @wide(
// CHECK-DAG:     %[[SHARED:.*]] = arith.constant 229448 : i32
// CHECK:         gpu.launch {{.*}} dynamic_shared_memory_size %[[SHARED]] {
// CHECK-COUNT-7:   attngpu.mbarrier.init
// CHECK:           attngpu.shared_tile {{.*}} to memref<128x256xf16, #gpu.address_space<workgroup>>
// CHECK:           scf.for
// CHECK:             attngpu.shared_tile {{.*}} to memref<64x256xf16, #gpu.address_space<workgroup>>
// CHECK:             attngpu.wgmma.descriptor {{.*}} {leading_bytes = 8192 : i64, stride_bytes = 1024 : i64, swizzle_bytes = 128 : i64} : memref<64x256xf16, #gpu.address_space<workgroup>>
// CHECK:             attngpu.wgmma.mma_async a_desc(%{{.*}}) b_desc(%{{.*}}) {{{.*}}element_type = f16, n = 64 : i64} -> vector<32xf32>
// CHECK:             attngpu.wgmma.mma_async a_regs(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>) b_desc(%{{.*}}) acc(%{{.*}} : vector<128xf32>) {b_offsets = array<i64: 0, 2048, 4096, 6144>, element_type = f16, n = 256 : i64, transpose_b} -> vector<128xf32>
module @attnc_kernels {
  func.func @wide(%q: memref<1x2x?x256xf16, strided<[?, ?, ?, ?], offset: ?>>,
                  %out: memref<1x2x?x256xf16, strided<[?, ?, ?, ?], offset: ?>>,
                  %lse: memref<1x2x?xf32, strided<[?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %q : memref<1x2x?x256xf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x2x?x256xf16>
    %o, %l = attn.attention %0, %0, %0 {tiles = #attn.tiles<block_m = 128, block_n = 64, mma = wgmma>}
        : tensor<1x2x?x256xf16>, tensor<1x2x?x256xf16>, tensor<1x2x?x256xf16> -> tensor<1x2x?x256xf16>, tensor<1x2x?xf32>
    bufferization.materialize_in_destination %o in writable %out : (tensor<1x2x?x256xf16>, memref<1x2x?x256xf16, strided<[?, ?, ?, ?], offset: ?>>) -> ()
    bufferization.materialize_in_destination %l in writable %lse : (tensor<1x2x?xf32>, memref<1x2x?xf32, strided<[?, ?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// Head dim 80 fills its second 64-column panel partly: the q, k and v
// tiles are whole panels (128 x 128); the copies pass over whole rows of
// 16 chunks (16 rows per pass), the threads of the 6 padding chunks copy
// nothing; S takes
// five k16 steps, the fifth from the second panel (128 rows x 128 bytes
// on), and P V is n = 80 (40 f32 per thread).

// CHECK-LABEL: func.func @partial_panels(
// CHECK:         attngpu.shared_tile {{.*}} to memref<128x128xbf16, #gpu.address_space<workgroup>>
// CHECK:         %[[CHUNK:.*]] = arith.remui %{{.*}}, %c16 : index
// CHECK:         %[[COLUMN:.*]] = arith.muli %[[CHUNK]], %c8 : index
// CHECK:         %[[REAL:.*]] = arith.cmpi ult, %[[COLUMN]], %c80 : index
// CHECK-NEXT:    scf.if %[[REAL]] {
// CHECK-NEXT:      nvgpu.device_async_copy {{.*}}, 8, %{{.*}} {bypassL1}
// CHECK:         scf.for
// CHECK:           attngpu.wgmma.mma_async a_desc(%{{.*}}) b_desc(%{{.*}}) {a_offsets = array<i64: 0, 32, 64, 96, 16384>, b_offsets = array<i64: 0, 32, 64, 96, 16384>, element_type = bf16, n = 128 : i64} -> vector<64xf32>
// CHECK:           attngpu.wgmma.mma_async a_regs({{.*}}) b_desc(%{{.*}}) acc(%{{.*}} : vector<40xf32>) {{{.*}}n = 80 : i64, transpose_b} -> vector<40xf32>
module @attnc_kernels {
  func.func @partial_panels(%q: memref<1x2x?x80xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                  %out: memref<1x2x?x80xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                  %lse: memref<1x2x?xf32, strided<[?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %q : memref<1x2x?x80xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x2x?x80xbf16>
    %o, %l = attn.attention %0, %0, %0 {causal, tiles = #attn.tiles<block_m = 128, block_n = 128, mma = wgmma>}
        : tensor<1x2x?x80xbf16>, tensor<1x2x?x80xbf16>, tensor<1x2x?x80xbf16> -> tensor<1x2x?x80xbf16>, tensor<1x2x?xf32>
    bufferization.materialize_in_destination %o in writable %out : (tensor<1x2x?x80xbf16>, memref<1x2x?x80xbf16, strided<[?, ?, ?, ?], offset: ?>>) -> ()
    bufferization.materialize_in_destination %l in writable %lse : (tensor<1x2x?xf32>, memref<1x2x?xf32, strided<[?, ?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// Producer tiles: a third warpgroup copies the
// tiles. Its 128 threads arrive on "full" per tile, the 256 consumers on
// "k free" and "v free". Past the barriers' set-up the block splits: the
// producer lowers its registers to 64, copies the q tile and then, per
// tile, waits until the K stage (tile t - 2) and the V stage (tile t - 4)
// are free, copies the tile's keys and values with a rolled loop of row
// passes and arrives on "full" when they land; the consumers take the
// registers it gave back (216 each) and only wait for each tile's copies.

// CHECK-LABEL: func.func @producer(
// CHECK-DAG:     %[[CONSUMERS:.*]] = arith.constant 256 : i32
// CHECK-DAG:     %[[PRODUCERS:.*]] = arith.constant 128 : i32
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG:     %[[C384:.*]] = arith.constant 384 : index
// CHECK:         gpu.launch {{.*}} threads(%[[TID:[a-z0-9_]+]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (%{{[a-z0-9_]+}} = %[[C384]],
// CHECK-COUNT-2:   attngpu.mbarrier.init %{{.*}}, %[[PRODUCERS]]
// CHECK-COUNT-6:   attngpu.mbarrier.init %{{.*}}, %[[CONSUMERS]]
// CHECK:           %[[IS_PRODUCER:.*]] = arith.cmpi uge, %[[TID]], %[[C256]] : index
// CHECK-NEXT:      scf.if %[[IS_PRODUCER]] {
// CHECK-NEXT:        nvvm.setmaxregister  decrease 64
// CHECK:             scf.for
// CHECK:               nvgpu.device_async_copy
// CHECK:             scf.for
// CHECK:               attngpu.mbarrier.wait
// CHECK:               attngpu.mbarrier.wait
// CHECK:               scf.for
// CHECK:                 nvgpu.device_async_copy
// CHECK:               scf.for
// CHECK:                 nvgpu.device_async_copy
// CHECK:               attngpu.mbarrier.arrive_cp_async
// CHECK:             nvvm.cp.async.wait.group 0
// CHECK:             nvvm.setmaxregister  increase 216
// CHECK-NEXT:        scf.for
// CHECK-NOT:           nvgpu.device_async_copy
// CHECK:               attngpu.mbarrier.wait
// CHECK-NEXT:          attngpu.fence_proxy_async
// CHECK-NOT:           nvgpu.device_async_copy
// CHECK:               attngpu.wgmma.mma_async
// CHECK-NOT:       nvgpu.device_async_copy
// CHECK:           gpu.terminator
module @attnc_kernels {
  func.func @producer(%q: memref<1x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                      %out: memref<1x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                      %lse: memref<1x4x?xf32, strided<[?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %q : memref<1x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x4x?x64xbf16>
    %o, %l = attn.attention %0, %0, %0 {tiles = #attn.tiles<block_m = 128, block_n = 128, mma = wgmma, producer = true>}
        : tensor<1x4x?x64xbf16>, tensor<1x4x?x64xbf16>, tensor<1x4x?x64xbf16> -> tensor<1x4x?x64xbf16>, tensor<1x4x?xf32>
      score {
      ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
        %t = math.tanh %s : f32
        attn.yield %t : f32
      }
    bufferization.materialize_in_destination %o in writable %out : (tensor<1x4x?x64xbf16>, memref<1x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>) -> ()
    bufferization.materialize_in_destination %l in writable %lse : (tensor<1x4x?xf32>, memref<1x4x?xf32, strided<[?, ?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// One consumer warpgroup beside the producer: its share of what the
// producer hands back would exceed the 256 registers a thread can have,
// so it asks for 256.

// CHECK-LABEL: func.func @producer_one_consumer(
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK:         gpu.launch {{.*}} threads(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (%{{[a-z0-9_]+}} = %[[C256]],
// CHECK:           nvvm.setmaxregister  decrease 64
// CHECK:           nvvm.setmaxregister  increase 256
module @attnc_kernels {
  func.func @producer_one_consumer(%q: memref<1x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                      %out: memref<1x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                      %lse: memref<1x4x?xf32, strided<[?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %q : memref<1x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x4x?x64xbf16>
    %o, %l = attn.attention %0, %0, %0 {tiles = #attn.tiles<block_m = 64, block_n = 128, mma = wgmma, producer = true>}
        : tensor<1x4x?x64xbf16>, tensor<1x4x?x64xbf16>, tensor<1x4x?x64xbf16> -> tensor<1x4x?x64xbf16>, tensor<1x4x?xf32>
      score {
      ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
        %t = math.tanh %s : f32
        attn.yield %t : f32
      }
    bufferization.materialize_in_destination %o in writable %out : (tensor<1x4x?x64xbf16>, memref<1x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>) -> ()
    bufferization.materialize_in_destination %l in writable %lse : (tensor<1x4x?xf32>, memref<1x4x?xf32, strided<[?, ?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// `tma` tiles: the producer loads by TMA where the runtime could make the
// tensor maps of q, k and v (one per input, a box per 64-column panel of a
// tile), else it copies element by element (a layout TMA cannot describe
// has no 16-byte copies either), which fits the 32 registers such a
// producer keeps (the consumers get 232). By TMA one thread arrives on "full"
// (so the barriers expect 1 arrival, not the producer's 128) announcing
// the bytes of the key and value boxes, and of the q boxes with the first
// tile (2 x 16384 + 2 x 16384, plus 2 x 16384). `ping_pong` tiles: the
// consumer warpgroups issue each tile's products in turn, warpgroup w
// waiting at named barrier w + 1 and passing the turn to the next
// ((w + 1) mod 2, barrier ((w + 1) mod 2) + 1); the first has the first turn.

// CHECK-LABEL: func.func @tma_ping_pong(
// CHECK-SAME:    %[[Q:[a-z0-9]+]]: memref<?x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK-SAME:    %[[K:[a-z0-9]+]]: memref<?x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK-SAME:    %[[V:[a-z0-9]+]]: memref<?x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK:         gpu.launch
// CHECK:           %[[QMAP:.*]], %[[QOK:.*]] = attngpu.tensor_map %[[Q]] {box = array<i64: 64, 128, 1, 1>, swizzle_bytes = 128 : i64}
// CHECK-NEXT:      %[[KMAP:.*]], %[[KOK:.*]] = attngpu.tensor_map %[[K]] {box = array<i64: 64, 128, 1, 1>, swizzle_bytes = 128 : i64}
// CHECK-NEXT:      %[[VMAP:.*]], %[[VOK:.*]] = attngpu.tensor_map %[[V]] {box = array<i64: 64, 128, 1, 1>, swizzle_bytes = 128 : i64}
// CHECK-NEXT:      %[[KVOK:.*]] = arith.andi %[[KOK]], %[[VOK]] : i1
// CHECK-NEXT:      %[[OK:.*]] = arith.andi %[[QOK]], %[[KVOK]] : i1
// CHECK-NEXT:      attngpu.tensor_map %{{.*}} {box = array<i64: 64, 128, 1, 1>, swizzle_bytes = 128 : i64}
// CHECK-NEXT:      %[[ARRIVALS:.*]] = arith.select %[[OK]], %{{.*}}, %{{.*}} : i32
// CHECK:           attngpu.mbarrier.init %{{.*}}, %[[ARRIVALS]]
// CHECK-NEXT:      attngpu.mbarrier %{{.*}}
// CHECK-NEXT:      attngpu.mbarrier.init %{{.*}}, %[[ARRIVALS]]
// CHECK:           nvvm.setmaxregister  decrease 32
// CHECK-NEXT:      arith.cmpi eq, %{{.*}}, %c256 : index
// CHECK-NEXT:      scf.if %[[OK]] {
// CHECK:             scf.for
// CHECK:               %[[BYTES:.*]] = arith.select %{{.*}}, %c98304_i32, %c65536_i32 : i32
// CHECK-NEXT:          attngpu.mbarrier.arrive_expect_tx %[[FULL:.*]], %[[BYTES]]
// CHECK-NEXT:          scf.if
// CHECK:                 attngpu.tma.load %[[QMAP]][%c0_i32, {{.*}}], %[[FULL]] to
// CHECK:                 attngpu.tma.load %[[QMAP]][%c64_i32, {{.*}}], %[[FULL]] to
// CHECK:               attngpu.tma.load %[[KMAP]][%c0_i32, {{.*}}], %[[FULL]] to
// CHECK:               attngpu.tma.load %[[KMAP]][%c64_i32, {{.*}}], %[[FULL]] to
// CHECK:               attngpu.tma.load %[[VMAP]][%c0_i32, {{.*}}], %[[FULL]] to
// CHECK:               attngpu.tma.load %[[VMAP]][%c64_i32, {{.*}}], %[[FULL]] to
// CHECK:           } else {
// CHECK-NOT:         nvgpu.device_async_copy
// CHECK:             memref.load %[[Q]]
// CHECK-NOT:         nvgpu.device_async_copy
// CHECK:             memref.load %[[K]]
// CHECK-NOT:         nvgpu.device_async_copy
// CHECK:             memref.load %[[V]]
// CHECK-NOT:         nvgpu.device_async_copy
// CHECK:             attngpu.mbarrier.arrive %
// CHECK:           nvvm.setmaxregister  increase 232
// CHECK-NEXT:      %[[WG:.*]] = arith.divui %{{.*}}, %c128 : index
// CHECK-DAG:       %[[OWN:.*]] = arith.addi %[[WG]], %c1 : index
// CHECK-DAG:       %[[NEXTWG:.*]] = arith.remui %[[OWN]], %c2 : index
// CHECK-DAG:       %[[OWNID:.*]] = arith.index_castui %[[OWN]] : index to i32
// CHECK-DAG:       %[[NEXT:.*]] = arith.addi %[[NEXTWG]], %c1 : index
// CHECK-DAG:       %[[NEXTID:.*]] = arith.index_castui %[[NEXT]] : index to i32
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %[[WG]], %c0 : index
// CHECK-NEXT:      scf.if %[[FIRST]] {
// CHECK-NEXT:        attngpu.named_barrier.arrive %[[OWNID]], 256
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.for
// CHECK:             attngpu.named_barrier.sync %[[OWNID]], 256
// CHECK-NEXT:        attngpu.wgmma.fence
// CHECK-NEXT:        attngpu.wgmma.mma_async
// CHECK-NEXT:        attngpu.wgmma.commit_group
// CHECK-NEXT:        attngpu.wgmma.mma_async
// CHECK-NEXT:        attngpu.wgmma.commit_group
// CHECK-NEXT:        attngpu.named_barrier.arrive %[[NEXTID]], 256
// CHECK-NEXT:        attngpu.wgmma.wait_group
module @attnc_kernels {
  func.func @tma_ping_pong(%q: memref<?x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                      %k: memref<?x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                      %v: memref<?x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                      %out: memref<?x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                      %lse: memref<?x4x?xf32, strided<[?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %q : memref<?x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<?x4x?x128xbf16>
    %1 = bufferization.to_tensor %k : memref<?x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<?x4x?x128xbf16>
    %2 = bufferization.to_tensor %v : memref<?x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<?x4x?x128xbf16>
    %o, %l = attn.attention %0, %1, %2 {tiles = #attn.tiles<block_m = 128, block_n = 128, mma = wgmma, producer = true, tma = true, ping_pong = true>}
        : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16> -> tensor<?x4x?x128xbf16>, tensor<?x4x?xf32>
    bufferization.materialize_in_destination %o in writable %out : (tensor<?x4x?x128xbf16>, memref<?x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>) -> ()
    bufferization.materialize_in_destination %l in writable %lse : (tensor<?x4x?xf32>, memref<?x4x?xf32, strided<[?, ?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// The output of `tma` tiles goes out by TMA where the runtime could make its
// tensor map (q's boxes): each consumer writes its pairs of O over its rows
// of q's stage, fences them for the async proxy and arrives on "out staged"
// (one barrier, 256 arrivals, after the four v stages' barriers from
// 229408); the producer's TMA thread, after its loads, waits for it, stores
// a box per 64-column panel of q's stage and waits for the boxes' reads.
// Without the map the consumers store pairs to global memory as before.

// CHECK-LABEL: func.func @tma_output(
// CHECK-SAME:    %{{[a-z0-9]+}}: memref<?x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK-SAME:    %{{[a-z0-9]+}}: memref<?x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK-SAME:    %{{[a-z0-9]+}}: memref<?x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<?x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK:         gpu.launch
// CHECK:           %[[OMAP:.*]], %[[OOK:.*]] = attngpu.tensor_map %[[OUT]] {box = array<i64: 64, 128, 1, 1>, swizzle_bytes = 128 : i64}
// CHECK:           %[[STAGED:.*]] = attngpu.mbarrier %{{.*}}[%c229440]
// CHECK-NEXT:      attngpu.mbarrier.init %[[STAGED]], %c256_i32
// CHECK:           nvvm.setmaxregister  decrease 32
// CHECK-NEXT:      %[[TMATHREAD:.*]] = arith.cmpi eq, %{{.*}}, %c256 : index
// CHECK:           %[[STORES:.*]] = arith.andi %[[TMATHREAD]], %[[OOK]] : i1
// CHECK-NEXT:      scf.if %[[STORES]] {
// CHECK-NEXT:        %[[WAIT:.*]] = attngpu.mbarrier %{{.*}}[%c229440]
// CHECK-NEXT:        attngpu.mbarrier.wait %[[WAIT]], %c0_i32
// CHECK:             attngpu.shared_tile %{{.*}}[%c0] {swizzle_bytes = 128 : i64}
// CHECK-NEXT:        attngpu.tma.store %{{.*}} to %[[OMAP]][%c0_i32, %{{.*}}] : memref<128x64xbf16, #gpu.address_space<workgroup>>, !llvm.ptr
// CHECK-NEXT:        attngpu.shared_tile %{{.*}}[%c16384] {swizzle_bytes = 128 : i64}
// CHECK-NEXT:        attngpu.tma.store %{{.*}} to %[[OMAP]][%c64_i32, %{{.*}}] : memref<128x64xbf16, #gpu.address_space<workgroup>>, !llvm.ptr
// CHECK-NEXT:        nvvm.cp.async.bulk.commit.group
// CHECK-NEXT:        nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK:           nvvm.setmaxregister  increase 232
// CHECK:           scf.if %[[OOK]] {
// CHECK-COUNT-32:    vector.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<128x128xbf16, #gpu.address_space<workgroup>>, vector<2xbf16>
// CHECK-NEXT:        attngpu.fence_proxy_async
// CHECK-NEXT:        %[[ARRIVE:.*]] = attngpu.mbarrier %{{.*}}[%c229440]
// CHECK-NEXT:        attngpu.mbarrier.arrive %[[ARRIVE]]
// CHECK-NEXT:      } else {
// CHECK:             vector.store %{{.*}}, %{{.*}}[%{{.*}}] {alignment = 4 : i64} : memref<?xbf16, strided<[1], offset: ?>>, vector<2xbf16>
module @attnc_kernels {
  func.func @tma_output(%q: memref<?x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                        %k: memref<?x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                        %v: memref<?x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                        %out: memref<?x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                        %lse: memref<?x4x?xf32, strided<[?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %q : memref<?x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<?x4x?x128xbf16>
    %1 = bufferization.to_tensor %k : memref<?x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<?x4x?x128xbf16>
    %2 = bufferization.to_tensor %v : memref<?x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<?x4x?x128xbf16>
    %o, %l = attn.attention %0, %1, %2 {tiles = #attn.tiles<block_m = 128, block_n = 128, mma = wgmma, producer = true, tma = true>}
        : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16> -> tensor<?x4x?x128xbf16>, tensor<?x4x?xf32>
    bufferization.materialize_in_destination %o in writable %out : (tensor<?x4x?x128xbf16>, memref<?x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>) -> ()
    bufferization.materialize_in_destination %l in writable %lse : (tensor<?x4x?xf32>, memref<?x4x?xf32, strided<[?, ?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// Under a mask (here causal) the consumer warpgroups finish apart, so each
// stages its 64 rows behind its own "out staged" barrier (128 arrivals,
// the index from the thread's row) and the producer stores each
// warpgroup's rows (boxes of 64 rows; warpgroup 1's from 8192 bytes into
// each panel) as soon as they are in.

// CHECK-LABEL: func.func @tma_output_causal(
// CHECK:         gpu.launch
// CHECK:           %[[OMAP:.*]], %[[OOK:.*]] = attngpu.tensor_map %{{.*}} {box = array<i64: 64, 64, 1, 1>, swizzle_bytes = 128 : i64}
// CHECK:           %[[STAGED0:.*]] = attngpu.mbarrier %{{.*}}[%c229440]
// CHECK-NEXT:      attngpu.mbarrier.init %[[STAGED0]], %c128_i32
// CHECK-NEXT:      %[[STAGED1:.*]] = attngpu.mbarrier %{{.*}}[%c229448]
// CHECK-NEXT:      attngpu.mbarrier.init %[[STAGED1]], %c128_i32
// CHECK:           nvvm.setmaxregister  decrease 32
// CHECK:             %[[WAIT0:.*]] = attngpu.mbarrier %{{.*}}[%c229440]
// CHECK-NEXT:        attngpu.mbarrier.wait %[[WAIT0]], %c0_i32
// CHECK:             attngpu.shared_tile %{{.*}}[%c0] {swizzle_bytes = 128 : i64}
// CHECK-NEXT:        attngpu.tma.store %{{.*}} to %[[OMAP]][%c0_i32, %{{.*}}] : memref<64x64xbf16, #gpu.address_space<workgroup>>, !llvm.ptr
// CHECK-NEXT:        attngpu.shared_tile %{{.*}}[%c16384] {swizzle_bytes = 128 : i64}
// CHECK-NEXT:        attngpu.tma.store %{{.*}} to %[[OMAP]][%c64_i32, %{{.*}}]
// CHECK-NEXT:        %[[WAIT1:.*]] = attngpu.mbarrier %{{.*}}[%c229448]
// CHECK-NEXT:        attngpu.mbarrier.wait %[[WAIT1]], %c0_i32
// CHECK:             attngpu.shared_tile %{{.*}}[%c8192] {swizzle_bytes = 128 : i64}
// CHECK-NEXT:        attngpu.tma.store %{{.*}} to %[[OMAP]][%c0_i32, %{{.*}}]
// CHECK-NEXT:        attngpu.shared_tile %{{.*}}[%c24576] {swizzle_bytes = 128 : i64}
// CHECK-NEXT:        attngpu.tma.store %{{.*}} to %[[OMAP]][%c64_i32, %{{.*}}]
// CHECK-NEXT:        nvvm.cp.async.bulk.commit.group
// CHECK:           scf.if %[[OOK]] {
// CHECK-COUNT-32:    vector.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<128x128xbf16, #gpu.address_space<workgroup>>, vector<2xbf16>
// CHECK-NEXT:        attngpu.fence_proxy_async
// CHECK-NEXT:        %[[GROUP:.*]] = arith.divui %{{.*}}, %c64 : index
// CHECK:             %[[ARRIVE:.*]] = attngpu.mbarrier %{{.*}}[%{{.*}}]
// CHECK-NEXT:        attngpu.mbarrier.arrive %[[ARRIVE]]
// CHECK-NEXT:      } else {
module @attnc_kernels {
  func.func @tma_output_causal(%q: memref<?x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                               %out: memref<?x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                               %lse: memref<?x4x?xf32, strided<[?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %q : memref<?x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<?x4x?x128xbf16>
    %o, %l = attn.attention %0, %0, %0 {causal, tiles = #attn.tiles<block_m = 128, block_n = 128, mma = wgmma, producer = true, tma = true>}
        : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16> -> tensor<?x4x?x128xbf16>, tensor<?x4x?xf32>
    bufferization.materialize_in_destination %o in writable %out : (tensor<?x4x?x128xbf16>, memref<?x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>) -> ()
    bufferization.materialize_in_destination %l in writable %lse : (tensor<?x4x?xf32>, memref<?x4x?xf32, strided<[?, ?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// Without a key-tile list each consumer warpgroup classifies a key tile for
// its own 64 rows (their first and last, clamped to the block's last row;
// the warpgroup read from lane 0, so that the compiler sees it uniform
// across the warp): causal, a tile starting past the warpgroup's last row
// is empty for it (skipped), and one reaching past its first row is
// partial (masked). A warpgroup whose first row is past the block's last
// (the sequence's last block) skips every tile.

// Three consumer warpgroups store pairs of O (their kernel measured slower
// with the TMA store): no tensor map of the output (q's and, the same
// input's, k's and v's), no TMA store.

// CHECK-LABEL: func.func @causal_warpgroup_rows(
// CHECK:         attngpu.tensor_map %{{.*}} {box = array<i64: 64, 192, 1, 1>
// CHECK-NEXT:    attngpu.tensor_map %{{.*}} {box = array<i64: 64, 128, 1, 1>
// CHECK-NOT:     attngpu.tensor_map
// CHECK-NOT:     attngpu.tma.store
// CHECK:         %[[BLOCK:.*]] = arith.muli %{{.*}}, %c192 : index
// CHECK:         %[[END:.*]] = arith.addi %[[BLOCK]], %{{.*}} : index
// CHECK-NEXT:    %[[BLOCK_LAST:.*]] = arith.subi %[[END]], %c1 : index
// CHECK:         nvvm.setmaxregister  increase 160
// CHECK:         scf.for %[[T:.*]] = %c0 to
// CHECK:           %[[K0:.*]] = arith.muli %[[T]], %c128 : index
// CHECK:           attngpu.mbarrier.wait
// CHECK:           %[[WG:.*]] = arith.divui %{{.*}}, %c128 : index
// CHECK-NEXT:      %[[WG32:.*]] = arith.index_castui %[[WG]] : index to i32
// CHECK-NEXT:      %[[OWN:.*]], %{{.*}} = gpu.shuffle  idx %[[WG32]], %c0_i32, %c32_i32 : i32
// CHECK-NEXT:      %[[OWN_INDEX:.*]] = arith.index_castui %[[OWN]] : i32 to index
// CHECK-NEXT:      %[[OFFSET:.*]] = arith.muli %[[OWN_INDEX]], %c64 : index
// CHECK-NEXT:      %[[FIRST_ROW:.*]] = arith.addi %[[BLOCK]], %[[OFFSET]] : index
// CHECK-NEXT:      %[[HOLDS_ROWS:.*]] = arith.cmpi ule, %[[FIRST_ROW]], %[[BLOCK_LAST]] : index
// CHECK-NEXT:      %[[FIRST:.*]] = arith.minui %[[FIRST_ROW]], %[[BLOCK_LAST]] : index
// CHECK-NEXT:      %[[LAST_ROW:.*]] = arith.addi %[[FIRST_ROW]], %c63 : index
// CHECK-NEXT:      %[[LAST:.*]] = arith.minui %[[LAST_ROW]], %[[BLOCK_LAST]] : index
// CHECK:           %[[KLAST:.*]] = arith.subi %{{.*}}, %c1 : index
// CHECK-NEXT:      %[[ALLOWS:.*]] = arith.cmpi sle, %[[K0]], %[[LAST]] : index
// CHECK-NEXT:      %[[BLOCKS:.*]] = arith.cmpi sgt, %[[KLAST]], %[[FIRST]] : index
// CHECK-NEXT:      %[[OWN_ALLOWS:.*]] = arith.andi %[[ALLOWS]], %[[HOLDS_ROWS]] : i1
// CHECK-NEXT:      scf.if %[[OWN_ALLOWS]]
module @attnc_kernels {
  func.func @causal_warpgroup_rows(%q: memref<?x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                      %out: memref<?x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                      %lse: memref<?x4x?xf32, strided<[?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %q : memref<?x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<?x4x?x64xbf16>
    %o, %l = attn.attention %0, %0, %0 {causal, tiles = #attn.tiles<block_m = 192, block_n = 128, mma = wgmma, producer = true, tma = true>}
        : tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16> -> tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>
    bufferization.materialize_in_destination %o in writable %out : (tensor<?x4x?x64xbf16>, memref<?x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>) -> ()
    bufferization.materialize_in_destination %l in writable %lse : (tensor<?x4x?xf32>, memref<?x4x?xf32, strided<[?, ?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// The score region reads keys in 32 bits: the tile's first key of the lane
// is cast once, and each element adds its constant offset as an i32 (no
// 64-bit add and no round trip through index per element).

// CHECK-LABEL: func.func @key_distance(
// CHECK-NOT:     i32 to index
// CHECK:         arith.uitofp %[[FIRST:.*]] : i32 to f32
// CHECK-NEXT:    arith.subf
// CHECK-NEXT:    %[[NEXT:.*]] = arith.addi %[[FIRST]], %{{.*}} : i32
// CHECK-NEXT:    arith.mulf
// CHECK-NEXT:    arith.uitofp %[[NEXT]] : i32 to f32
module @attnc_kernels {
  func.func @key_distance(%q: memref<1x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                          %out: memref<1x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                          %lse: memref<1x4x?xf32, strided<[?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %q : memref<1x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x4x?x64xbf16>
    %o, %l = attn.attention %0, %0, %0 {tiles = #attn.tiles<block_m = 128, block_n = 128, mma = wgmma, producer = true>}
        : tensor<1x4x?x64xbf16>, tensor<1x4x?x64xbf16>, tensor<1x4x?x64xbf16> -> tensor<1x4x?x64xbf16>, tensor<1x4x?xf32>
      score {
      ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
        %k32 = arith.index_castui %ki : index to i32
        %kf = arith.uitofp %k32 : i32 to f32
        %r = arith.subf %s, %kf : f32
        attn.yield %r : f32
      }
    bufferization.materialize_in_destination %o in writable %out : (tensor<1x4x?x64xbf16>, memref<1x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>) -> ()
    bufferization.materialize_in_destination %l in writable %lse : (tensor<1x4x?xf32>, memref<1x4x?xf32, strided<[?, ?, ?], offset: ?>>) -> ()
    return
  }
}
