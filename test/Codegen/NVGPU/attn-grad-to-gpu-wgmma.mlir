// RUN: attn-opt %s -split-input-file --convert-attn-to-gpu --canonicalize --cse | FileCheck %s

// The key/value gradient kernel on wgmma (pinned wgmma tiles: 64 queries x
// 128 keys, head dim 64): a gpu.launch of ceil(Nk / 128) x Hkv x B blocks
// of two warpgroups (in grid order though causal: it adds dq), swizzled
// tiles at multiples of 1024 bytes. Per query
// tile: the landed copies fenced for the async proxy before the barrier,
// then the next tile's copies, its lse and delta by 4-byte cp.async;
// Sᵀ = K Qᵀ and dPᵀ = V doutᵀ as two products of the warpgroup's 64 key
// rows (A from its rows of K and V), the lse (scaled to log2 units) and
// delta of the thread's query columns loaded while both run, Sᵀ waited for
// alone; Pᵀ computed
// while dPᵀ runs; dV += Pᵀ dout issued (A from registers, dout MN-major)
// before dPᵀ is waited for, so it runs while dSᵀ is computed; then dK +=
// dSᵀ Q, left in flight while dSᵀ goes to shared memory in pairs; dq = dS
// K over all 128 keys for the warpgroup's 32 columns (A = dSᵀ read
// transposed, B = K from the warpgroup's column offset) issued once dK and
// dV are waited for (one product at a time), waited for, and staged in
// shared memory as 16-byte stores in the accumulator's swizzled row order
// (row_swizzle = 32), which the first thread's wait for the previous
// tile's bulk reduction to read them before the dSᵀ barrier allows. The staged rows are added by one bulk reduction after the next
// tile's barrier, and the last tile's after the loop, waited for.

// CHECK-LABEL: func.func @grad_kv(
// CHECK:         %[[BLOCKS:.*]] = arith.ceildivui %{{.*}}, %c128 : index
// CHECK:         gpu.launch blocks(%[[KEY_BLOCK:.*]], %[[HEAD:.*]], %{{.*}}) in (%{{.*}} = %[[BLOCKS]], %{{.*}} = %c2, %{{.*}} = %c1) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c256, %{{.*}} = %c1, %{{.*}} = %c1) dynamic_shared_memory_size %c102400_i32
// CHECK-NOT:       arith.minui %{{.*}}, %c8 : index
// CHECK:           arith.muli %[[KEY_BLOCK]], %c128 : index
// CHECK:           scf.for %{{.*}} = %c0 to %{{.*}} step %c1 iter_args
// CHECK:             nvvm.cp.async.commit.group
// CHECK-NEXT:        nvvm.cp.async.wait.group 0
// CHECK-NEXT:        attngpu.fence_proxy_async
// CHECK-NEXT:        gpu.barrier
// CHECK:             scf.if
// CHECK:               attngpu.bulk_reduce_add %[[STAGED:.*]], %{{.*}}[%c0, %{{.*}}, %{{.*}}, %c0], %{{.*}} : memref<4096xf32, #gpu.address_space<workgroup>>, memref<1x4x?x64xf32
// CHECK-NEXT:          nvvm.cp.async.bulk.commit.group
// CHECK:             nvgpu.device_async_copy
// CHECK:             nvgpu.device_async_copy %{{.*}}[%{{.*}}], %[[LSE_ROWS:.*]][%{{.*}}], 1, %{{.*}} : memref<?xf32, strided<[1], offset: ?>> to memref<64xf32, #gpu.address_space<workgroup>>
// CHECK:             nvgpu.device_async_copy %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}], 1, %{{.*}} : memref<?xf32, strided<[1], offset: ?>> to memref<64xf32, #gpu.address_space<workgroup>>
// CHECK:               %[[ROWS:.*]] = arith.muli %{{.*}}, %c8192 : index
// CHECK:               %[[KD:.*]] = attngpu.wgmma.descriptor %[[K:.*]][%[[ROWS]]] {leading_bytes = 16 : i64, stride_bytes = 1024 : i64, swizzle_bytes = 128 : i64} : memref<128x64xbf16, #gpu.address_space<workgroup>>
// CHECK:               %[[QD:.*]] = attngpu.wgmma.descriptor %{{.*}}[%c0] {leading_bytes = 16 : i64, stride_bytes = 1024 : i64, swizzle_bytes = 128 : i64} : memref<64x64xbf16, #gpu.address_space<workgroup>>
// CHECK:               attngpu.wgmma.fence
// CHECK-NEXT:          %[[ST:.*]] = attngpu.wgmma.mma_async a_desc(%[[KD]]) b_desc(%[[QD]]) {a_offsets = array<i64: 0, 32, 64, 96>, b_offsets = array<i64: 0, 32, 64, 96>, element_type = bf16, n = 64 : i64} -> vector<32xf32>
// CHECK:               %[[DPT:.*]] = attngpu.wgmma.mma_async
// CHECK-NEXT:          attngpu.wgmma.commit_group
// CHECK-NEXT:          %[[LSE:.*]] = memref.load %[[LSE_ROWS]]
// CHECK-NEXT:          arith.mulf %[[LSE]], %{{.*}} : f32
// CHECK-NOT:           attngpu.wgmma
// CHECK:               attngpu.wgmma.wait_group 1(%[[ST]]) : vector<32xf32>
// CHECK:               attngpu.ex2
// CHECK:               attngpu.wgmma.fence
// CHECK-NEXT:          %[[DV:.*]] = attngpu.wgmma.mma_async a_regs({{.*}}) b_desc(%{{.*}}) acc(%{{.*}} : vector<32xf32>) {b_offsets = array<i64: 0, 2048, 4096, 6144>, element_type = bf16, n = 64 : i64, transpose_b} -> vector<32xf32>
// CHECK-NEXT:          attngpu.wgmma.commit_group
// CHECK-NOT:           attngpu.wgmma
// CHECK:               attngpu.wgmma.wait_group 1(%[[DPT]]) : vector<32xf32>
// CHECK:               attngpu.wgmma.fence
// CHECK-NEXT:          %[[DK:.*]] = attngpu.wgmma.mma_async a_regs({{.*}}) b_desc(%{{.*}}) acc(%{{.*}} : vector<32xf32>) {{.*}}transpose_b} -> vector<32xf32>
// CHECK-NEXT:          attngpu.wgmma.commit_group
// CHECK-NOT:           attngpu.wgmma
// CHECK:               vector.store
// CHECK-COUNT-15:      vector.store %{{.*}}, %[[DST:.*]][%{{.*}}, %{{.*}}] : memref<128x64xbf16, #gpu.address_space<workgroup>>, vector<2xbf16>
// CHECK-NEXT:          attngpu.fence_proxy_async
// CHECK-NEXT:          scf.if
// CHECK-NEXT:            nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NEXT:          }
// CHECK-NEXT:          gpu.barrier
// CHECK-NEXT:          attngpu.wgmma.wait_group 0(%[[DK]]) : vector<32xf32>
// CHECK:               attngpu.wgmma.wait_group 0(%[[DV]]) : vector<32xf32>
// CHECK:               %[[COLUMNS:.*]] = arith.muli %{{.*}}, %c32 : index
// CHECK:               %[[COLUMN_BYTES:.*]] = arith.muli %{{.*}}, %c2 : index
// CHECK:               %[[DSD:.*]] = attngpu.wgmma.descriptor %[[DST]][%c0] {leading_bytes = 16384 : i64, stride_bytes = 1024 : i64, swizzle_bytes = 128 : i64}
// CHECK:               %[[KN:.*]] = attngpu.wgmma.descriptor %[[K]][%{{.*}}] {leading_bytes = 16384 : i64, stride_bytes = 1024 : i64, swizzle_bytes = 128 : i64}
// CHECK:               %[[DQ:.*]] = attngpu.wgmma.mma_async a_desc(%[[DSD]]) b_desc(%[[KN]]) {a_offsets = array<i64: 0, 2048, 4096, 6144, 8192, 10240, 12288, 14336>, b_offsets = array<i64: 0, 2048, 4096, 6144, 8192, 10240, 12288, 14336>, element_type = bf16, n = 32 : i64, transpose_a, transpose_b} -> vector<16xf32>
// CHECK:               attngpu.wgmma.wait_group 0(%[[DQ]]) : vector<16xf32>
// CHECK-NOT:           attngpu.red_add
// CHECK-COUNT-4:       vector.store %{{.*}}, %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<4096xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-NEXT:          attngpu.fence_proxy_async
// CHECK-NOT:         gpu.barrier
// CHECK:           nvvm.cp.async.wait.group 0
// CHECK-NEXT:      gpu.barrier
// CHECK:           attngpu.bulk_reduce_add
// CHECK-NEXT:      nvvm.cp.async.bulk.commit.group
// CHECK:           nvvm.cp.async.bulk.wait_group 0
// CHECK-NOT:       {read}
func.func @grad_kv(%q: memref<1x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>, %k: memref<1x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                   %v: memref<1x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>, %l: memref<1x4x?xf32, strided<[?, ?, ?], offset: ?>>,
                   %d: memref<1x4x?xf32, strided<[?, ?, ?], offset: ?>>, %do: memref<1x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                   %acc: memref<1x4x?x64xf32, strided<[?, ?, ?, ?], offset: ?>>, %dk: memref<1x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                   %dv: memref<1x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>, %sum: memref<1x4x?x64xf32, strided<[?, ?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
  %0 = bufferization.to_tensor %q : memref<1x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x4x?x64xbf16>
  %1 = bufferization.to_tensor %k : memref<1x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x2x?x64xbf16>
  %2 = bufferization.to_tensor %v : memref<1x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x2x?x64xbf16>
  %3 = bufferization.to_tensor %l : memref<1x4x?xf32, strided<[?, ?, ?], offset: ?>> to tensor<1x4x?xf32>
  %4 = bufferization.to_tensor %d : memref<1x4x?xf32, strided<[?, ?, ?], offset: ?>> to tensor<1x4x?xf32>
  %5 = bufferization.to_tensor %do : memref<1x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x4x?x64xbf16>
  %6 = bufferization.to_tensor %acc : memref<1x4x?x64xf32, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x4x?x64xf32>
  %dk_t, %dv_t, %sum_t = attn.attention_grad_kv %0, %1, %2, %3, %4, %5, %6 {causal, row_swizzle = 32 : i64, tiles = #attn.tiles<block_m = 64, block_n = 128, mma = wgmma>}
      : tensor<1x4x?x64xbf16>, tensor<1x2x?x64xbf16>, tensor<1x2x?x64xbf16>, tensor<1x4x?xf32>, tensor<1x4x?xf32>, tensor<1x4x?x64xbf16>, tensor<1x4x?x64xf32>
      -> tensor<1x2x?x64xbf16>, tensor<1x2x?x64xbf16>, tensor<1x4x?x64xf32>
  bufferization.materialize_in_destination %dk_t in writable %dk : (tensor<1x2x?x64xbf16>, memref<1x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>) -> ()
  bufferization.materialize_in_destination %dv_t in writable %dv : (tensor<1x2x?x64xbf16>, memref<1x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>) -> ()
  bufferization.materialize_in_destination %sum_t in writable %sum : (tensor<1x4x?x64xf32>, memref<1x4x?x64xf32, strided<[?, ?, ?, ?], offset: ?>>) -> ()
  return
}

// -----

// The query gradient kernel on wgmma (pinned 128 queries x 64 keys; causal:
// query blocks last first, 8 heads side by side): two
// warpgroups of 64 query rows over the key tiles, the forward's products:
// S = Q Kᵀ and dP = dout Vᵀ (A from the warpgroup's rows of Q and dout),
// the lse and delta of the thread's two rows loaded while both run, S
// waited for alone so that P is computed while dP runs, then dS, dQ +=
// dS K with dS in registers against K MN-major, waited for in the tile
// (without a producer the next tile's copies go behind a block barrier,
// which does not order the other warpgroup's products).

// CHECK-LABEL: func.func @grad_q(
// CHECK:         gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%[[GX:.*]] = %{{.*}}, %{{.*}} = %c4, %{{.*}} = %c1) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c256, %{{.*}} = %c1, %{{.*}} = %c1) dynamic_shared_memory_size %c67584_i32
// CHECK:           %[[GROUP_PAIRS:.*]] = arith.minui %{{.*}}, %c8 : index
// CHECK-NEXT:      %[[STEP:.*]] = arith.divui %{{.*}}, %[[GROUP_PAIRS]] : index
// CHECK-NEXT:      %[[REST:.*]] = arith.subi %[[GX]], %[[STEP]] : index
// CHECK-NEXT:      arith.subi %[[REST]], %c1 : index
// CHECK:           scf.for %{{.*}} = %c0 to %{{.*}} step %c64 iter_args
// CHECK:             nvvm.cp.async.commit.group
// CHECK-NEXT:        nvvm.cp.async.wait.group 0
// CHECK-NEXT:        attngpu.fence_proxy_async
// CHECK-NEXT:        gpu.barrier
// CHECK:               %[[ROWS:.*]] = arith.muli %{{.*}}, %c8192 : index
// CHECK:               %[[QD:.*]] = attngpu.wgmma.descriptor %{{.*}}[%[[ROWS]]] {leading_bytes = 16 : i64, stride_bytes = 1024 : i64, swizzle_bytes = 128 : i64} : memref<128x64xbf16, #gpu.address_space<workgroup>>
// CHECK:               %[[KD:.*]] = attngpu.wgmma.descriptor %{{.*}}[%c0] {leading_bytes = 16 : i64, stride_bytes = 1024 : i64, swizzle_bytes = 128 : i64} : memref<64x64xbf16, #gpu.address_space<workgroup>>
// CHECK:               %[[S:.*]] = attngpu.wgmma.mma_async a_desc(%[[QD]]) b_desc(%[[KD]]) {a_offsets = array<i64: 0, 32, 64, 96>, b_offsets = array<i64: 0, 32, 64, 96>, element_type = bf16, n = 64 : i64} -> vector<32xf32>
// CHECK:               %[[DP:.*]] = attngpu.wgmma.mma_async
// CHECK-NEXT:          attngpu.wgmma.commit_group
// CHECK-COUNT-2:       memref.load
// CHECK:               attngpu.wgmma.wait_group 1(%[[S]]) : vector<32xf32>
// CHECK:               attngpu.ex2
// CHECK:               attngpu.wgmma.wait_group 0(%[[DP]]) : vector<32xf32>
// CHECK:               %[[DQ:.*]] = attngpu.wgmma.mma_async a_regs({{.*}}) b_desc(%{{.*}}) acc(%{{.*}} : vector<32xf32>) {b_offsets = array<i64: 0, 2048, 4096, 6144>, element_type = bf16, n = 64 : i64, transpose_b} -> vector<32xf32>
// CHECK-NEXT:          attngpu.wgmma.commit_group
// CHECK-NEXT:          attngpu.wgmma.wait_group 0(%[[DQ]]) : vector<32xf32>
// CHECK-NOT:           attngpu.wgmma
// CHECK:           nvvm.cp.async.wait.group 0
func.func @grad_q(%q: memref<1x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>, %k: memref<1x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                  %v: memref<1x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>, %l: memref<1x4x?xf32, strided<[?, ?, ?], offset: ?>>,
                  %d: memref<1x4x?xf32, strided<[?, ?, ?], offset: ?>>, %do: memref<1x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                  %dq: memref<1x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
  %0 = bufferization.to_tensor %q : memref<1x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x4x?x64xbf16>
  %1 = bufferization.to_tensor %k : memref<1x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x2x?x64xbf16>
  %2 = bufferization.to_tensor %v : memref<1x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x2x?x64xbf16>
  %3 = bufferization.to_tensor %l : memref<1x4x?xf32, strided<[?, ?, ?], offset: ?>> to tensor<1x4x?xf32>
  %4 = bufferization.to_tensor %d : memref<1x4x?xf32, strided<[?, ?, ?], offset: ?>> to tensor<1x4x?xf32>
  %5 = bufferization.to_tensor %do : memref<1x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x4x?x64xbf16>
  %dq_t = attn.attention_grad_q %0, %1, %2, %3, %4, %5 {causal, tiles = #attn.tiles<block_m = 128, block_n = 64, mma = wgmma>}
      : tensor<1x4x?x64xbf16>, tensor<1x2x?x64xbf16>, tensor<1x2x?x64xbf16>, tensor<1x4x?xf32>, tensor<1x4x?xf32>, tensor<1x4x?x64xbf16>
      -> tensor<1x4x?x64xbf16>
  bufferization.materialize_in_destination %dq_t in writable %dq : (tensor<1x4x?x64xbf16>, memref<1x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>) -> ()
  return
}

// -----

// Head dim 96 without dq (the separate program): the k, v, q and dout
// tiles are padded to whole 64-column panels (128 wide), Sᵀ and dPᵀ take
// six k16 steps, the last two from the second panels (K: 128 rows x 128
// bytes on, Q: 64 rows), and dV and dK are n = 96 (48 f32 per thread).

// CHECK-LABEL: func.func @grad_kv_partial_panels(
// CHECK:         attngpu.shared_tile {{.*}} to memref<128x128xbf16, #gpu.address_space<workgroup>>
// CHECK:         attngpu.shared_tile {{.*}} to memref<64x128xbf16, #gpu.address_space<workgroup>>
// CHECK:         attngpu.wgmma.mma_async a_desc(%{{.*}}) b_desc(%{{.*}}) {a_offsets = array<i64: 0, 32, 64, 96, 16384, 16416>, b_offsets = array<i64: 0, 32, 64, 96, 8192, 8224>, element_type = bf16, n = 64 : i64} -> vector<32xf32>
// CHECK:         attngpu.wgmma.mma_async a_regs({{.*}}) b_desc(%{{.*}}) acc(%{{.*}} : vector<48xf32>) {{{.*}}n = 96 : i64, transpose_b} -> vector<48xf32>
// CHECK:         attngpu.wgmma.mma_async a_regs({{.*}}) b_desc(%{{.*}}) acc(%{{.*}} : vector<48xf32>) {{{.*}}n = 96 : i64, transpose_b} -> vector<48xf32>
func.func @grad_kv_partial_panels(%q: memref<1x2x?x96xbf16, strided<[?, ?, ?, ?], offset: ?>>, %l: memref<1x2x?xf32, strided<[?, ?, ?], offset: ?>>,
                   %d: memref<1x2x?xf32, strided<[?, ?, ?], offset: ?>>, %dk: memref<1x2x?x96xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                   %dv: memref<1x2x?x96xbf16, strided<[?, ?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
  %0 = bufferization.to_tensor %q : memref<1x2x?x96xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x2x?x96xbf16>
  %1 = bufferization.to_tensor %l : memref<1x2x?xf32, strided<[?, ?, ?], offset: ?>> to tensor<1x2x?xf32>
  %2 = bufferization.to_tensor %d : memref<1x2x?xf32, strided<[?, ?, ?], offset: ?>> to tensor<1x2x?xf32>
  %dk_t, %dv_t = attn.attention_grad_kv %0, %0, %0, %1, %2, %0 {tiles = #attn.tiles<block_m = 64, block_n = 128, mma = wgmma>}
      : tensor<1x2x?x96xbf16>, tensor<1x2x?x96xbf16>, tensor<1x2x?x96xbf16>, tensor<1x2x?xf32>, tensor<1x2x?xf32>, tensor<1x2x?x96xbf16>
      -> tensor<1x2x?x96xbf16>, tensor<1x2x?x96xbf16>
  bufferization.materialize_in_destination %dk_t in writable %dk : (tensor<1x2x?x96xbf16>, memref<1x2x?x96xbf16, strided<[?, ?, ?, ?], offset: ?>>) -> ()
  bufferization.materialize_in_destination %dv_t in writable %dv : (tensor<1x2x?x96xbf16>, memref<1x2x?x96xbf16, strided<[?, ?, ?, ?], offset: ?>>) -> ()
  return
}

// -----

// `ping_pong` tiles: the key/value kernel's two warpgroups (64 keys each)
// issue each query tile's Sᵀ and dPᵀ in turn, warpgroup w waiting at named
// barrier w + 1 and passing the turn on once both are committed; the first
// has the first turn.

// CHECK-LABEL: func.func @grad_kv_ping_pong(
// CHECK:         %[[NEXTID:.*]] = arith.index_castui %{{.*}} : index to i32
// CHECK-NEXT:    %[[OWNID:.*]] = arith.index_castui %{{.*}} : index to i32
// CHECK-NEXT:    %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %c0 : index
// CHECK-NEXT:    scf.if %[[FIRST]] {
// CHECK-NEXT:      attngpu.named_barrier.arrive %[[OWNID]], 256
// CHECK-NEXT:    }
// CHECK:         scf.for
// CHECK:           attngpu.named_barrier.sync %[[OWNID]], 256
// CHECK-NEXT:      attngpu.wgmma.fence
// CHECK-NEXT:      attngpu.wgmma.mma_async
// CHECK-NEXT:      attngpu.wgmma.commit_group
// CHECK-NEXT:      attngpu.wgmma.mma_async
// CHECK-NEXT:      attngpu.wgmma.commit_group
// CHECK-NEXT:      attngpu.named_barrier.arrive %[[NEXTID]], 256
func.func @grad_kv_ping_pong(%q: memref<1x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>, %l: memref<1x2x?xf32, strided<[?, ?, ?], offset: ?>>,
                   %d: memref<1x2x?xf32, strided<[?, ?, ?], offset: ?>>, %dk: memref<1x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                   %dv: memref<1x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
  %0 = bufferization.to_tensor %q : memref<1x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x2x?x64xbf16>
  %1 = bufferization.to_tensor %l : memref<1x2x?xf32, strided<[?, ?, ?], offset: ?>> to tensor<1x2x?xf32>
  %2 = bufferization.to_tensor %d : memref<1x2x?xf32, strided<[?, ?, ?], offset: ?>> to tensor<1x2x?xf32>
  %dk_t, %dv_t = attn.attention_grad_kv %0, %0, %0, %1, %2, %0 {tiles = #attn.tiles<block_m = 64, block_n = 128, mma = wgmma, ping_pong = true>}
      : tensor<1x2x?x64xbf16>, tensor<1x2x?x64xbf16>, tensor<1x2x?x64xbf16>, tensor<1x2x?xf32>, tensor<1x2x?xf32>, tensor<1x2x?x64xbf16>
      -> tensor<1x2x?x64xbf16>, tensor<1x2x?x64xbf16>
  bufferization.materialize_in_destination %dk_t in writable %dk : (tensor<1x2x?x64xbf16>, memref<1x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>) -> ()
  bufferization.materialize_in_destination %dv_t in writable %dv : (tensor<1x2x?x64xbf16>, memref<1x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>) -> ()
  return
}

// -----

// Warp-specialized (`producer` and `tma` tiles, the default): 384 threads,
// the inputs' tensor maps (tiles in boxes of 64 columns, lse and delta
// rows), a ring of three stages on mbarriers ("full" expects the loading
// thread, or the producer's 128 copying threads where a map is invalid;
// "free" the 256 consumers). The producer keeps 72 registers: one thread
// loads each key tile by TMA (the q, dout, lse and delta rows with the
// first); otherwise its threads copy. The consumers wait on "full" and free
// the previous tile's stage once their first wait covers its dQ product,
// which stays in flight into the next tile.

// CHECK-LABEL: func.func @grad_q_producer(
// CHECK:         gpu.launch {{.*}} threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c384, %{{.*}} = %c1, %{{.*}} = %c1)
// CHECK-COUNT-4:   attngpu.tensor_map {{.*}} {box = array<i64: 64, {{64|128}}, 1, 1>, swizzle_bytes = 128 : i64}
// CHECK-COUNT-2:   attngpu.tensor_map {{.*}} {box = array<i64: 128, 1, 1>, swizzle_bytes = 0 : i64}
// CHECK-COUNT-3:   attngpu.mbarrier.init %{{.*}}, %c256_i32
// CHECK-NOT:       attngpu.mbarrier.init
// CHECK:           nvvm.setmaxregister  decrease 72
// CHECK:               attngpu.mbarrier.arrive_expect_tx
// CHECK-COUNT-4:         attngpu.tma.load
// CHECK-COUNT-2:       attngpu.tma.load
// CHECK:             nvvm.cp.async.wait.group 0
// CHECK:             attngpu.mbarrier.arrive
// CHECK:           nvvm.setmaxregister  increase 216
// CHECK:           scf.for
// CHECK:             attngpu.mbarrier.wait
// CHECK:               attngpu.wgmma.wait_group 1
// CHECK:               attngpu.mbarrier.arrive
// CHECK:               attngpu.wgmma.commit_group
// CHECK-NOT:           attngpu.wgmma.wait_group
// CHECK:             } else {
// CHECK:               attngpu.wgmma.wait_group 0
// CHECK:               attngpu.mbarrier.arrive
// CHECK:           attngpu.wgmma.wait_group 0
func.func @grad_q_producer(%q: memref<1x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>, %k: memref<1x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                           %v: memref<1x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>, %l: memref<1x4x?xf32, strided<[?, ?, ?], offset: ?>>,
                           %d: memref<1x4x?xf32, strided<[?, ?, ?], offset: ?>>, %do: memref<1x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                           %dq: memref<1x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
  %0 = bufferization.to_tensor %q : memref<1x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x4x?x64xbf16>
  %1 = bufferization.to_tensor %k : memref<1x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x2x?x64xbf16>
  %2 = bufferization.to_tensor %v : memref<1x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x2x?x64xbf16>
  %3 = bufferization.to_tensor %l : memref<1x4x?xf32, strided<[?, ?, ?], offset: ?>> to tensor<1x4x?xf32>
  %4 = bufferization.to_tensor %d : memref<1x4x?xf32, strided<[?, ?, ?], offset: ?>> to tensor<1x4x?xf32>
  %5 = bufferization.to_tensor %do : memref<1x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x4x?x64xbf16>
  %dq_t = attn.attention_grad_q %0, %1, %2, %3, %4, %5 {causal, tiles = #attn.tiles<block_m = 128, block_n = 64, mma = wgmma, producer = true, tma = true>}
      : tensor<1x4x?x64xbf16>, tensor<1x2x?x64xbf16>, tensor<1x2x?x64xbf16>, tensor<1x4x?xf32>, tensor<1x4x?xf32>, tensor<1x4x?x64xbf16>
      -> tensor<1x4x?x64xbf16>
  bufferization.materialize_in_destination %dq_t in writable %dq : (tensor<1x4x?x64xbf16>, memref<1x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>) -> ()
  return
}

// -----

// The key/value kernel warp-specialized: the producer keeps 24 registers;
// it loads k and v with the first query tile, then q, dout, lse and delta
// per query tile; the consumers free a tile's stage once dK and dV, its
// last products, are waited for.

// CHECK-LABEL: func.func @grad_kv_producer(
// CHECK:         gpu.launch {{.*}} threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c384, %{{.*}} = %c1, %{{.*}} = %c1)
// CHECK-COUNT-3:   attngpu.mbarrier.init %{{.*}}, %c256_i32
// CHECK-NOT:       attngpu.mbarrier.init
// CHECK:           nvvm.setmaxregister  decrease 24
// CHECK:               attngpu.mbarrier.arrive_expect_tx
// CHECK-COUNT-2:         attngpu.tma.load
// CHECK-COUNT-4:       attngpu.tma.load
// CHECK:           nvvm.setmaxregister  increase 240
// CHECK:           scf.for
// CHECK:             attngpu.mbarrier.wait
// CHECK-COUNT-2:       attngpu.wgmma.wait_group 0
// CHECK:             attngpu.mbarrier.arrive
func.func @grad_kv_producer(%q: memref<1x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>, %l: memref<1x2x?xf32, strided<[?, ?, ?], offset: ?>>,
                            %d: memref<1x2x?xf32, strided<[?, ?, ?], offset: ?>>,
                            %dk: memref<1x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>, %dv: memref<1x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
  %0 = bufferization.to_tensor %q : memref<1x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x2x?x64xbf16>
  %1 = bufferization.to_tensor %l : memref<1x2x?xf32, strided<[?, ?, ?], offset: ?>> to tensor<1x2x?xf32>
  %2 = bufferization.to_tensor %d : memref<1x2x?xf32, strided<[?, ?, ?], offset: ?>> to tensor<1x2x?xf32>
  %dk_t, %dv_t = attn.attention_grad_kv %0, %0, %0, %1, %2, %0 {tiles = #attn.tiles<block_m = 64, block_n = 128, mma = wgmma, producer = true, tma = true>}
      : tensor<1x2x?x64xbf16>, tensor<1x2x?x64xbf16>, tensor<1x2x?x64xbf16>, tensor<1x2x?xf32>, tensor<1x2x?xf32>, tensor<1x2x?x64xbf16>
      -> tensor<1x2x?x64xbf16>, tensor<1x2x?x64xbf16>
  bufferization.materialize_in_destination %dk_t in writable %dk : (tensor<1x2x?x64xbf16>, memref<1x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>) -> ()
  bufferization.materialize_in_destination %dv_t in writable %dv : (tensor<1x2x?x64xbf16>, memref<1x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>) -> ()
  return
}
