// RUN: attn-opt %s -split-input-file --convert-attn-to-gpu --canonicalize --cse | FileCheck %s

// f16/bf16 attention with head dims that are multiples of 64 and the
// warpgroup kernel's tiles (128 x 128 at head dim 128) gets wgmma: two
// warpgroups of 64 query rows share each key tile. Tiles live in 128-byte
// swizzled panels of 64 columns (a 128 x 128 tile is a 256 x 64 view, the
// 16-byte chunk index xor the row mod 8), copied with unrolled cp.async, the
// q tile's with the first key tile's; causal blocks run last row block
// first. No block-wide barrier per tile: mbarriers (one arrival per thread
// and tile) say when a tile's copies landed ("full", through
// cp.async.mbarrier.arrive.noinc) and when both warpgroups are done with a
// k stage (after S) or a v stage (after its P V), which the copies of a
// later tile wait for;
// writes reach the tensor cores through a proxy fence; descriptors carry the
// 128-byte swizzle (bit 62), 1024 bytes per 8 rows and, for MN-major V, a
// panel of 128 keys x 128 bytes per 64 output columns. One asm statement
// per tile computes every step's descriptor, fences, issues S = Q Kᵀ (the
// first step overwrites) and the previous tile's P V (P from registers, V
// transposed) as two groups, and waits for S only; the softmax runs while
// P V does, and a second statement waits for it, passing the probabilities
// through so that the next P is packed after the wait. The last P V runs
// after the loop.

// CHECK-LABEL: gpu.module @attnc_kernels
// CHECK:         gpu.func @causal(
// CHECK-SAME:      kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// CHECK:           %[[BLOCK:.*]] = gpu.block_id  x
// CHECK:           %[[GRID:.*]] = gpu.grid_dim  x
// CHECK:           arith.subi %[[GRID]], %[[BLOCK]] : index
// CHECK:           %[[SMEM:.*]] = gpu.dynamic_shared_memory
// CHECK:           memref.view %[[SMEM]][%{{.*}}][] : {{.*}} to memref<256x64xbf16, #gpu.address_space<workgroup>>
// CHECK:           %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[SMEM]]
// CHECK-COUNT-8:     nvvm.mbarrier.init %{{.*}}, %c256_i32 : !llvm.ptr<3>, i32
// CHECK:           nvvm.fence.mbarrier.init
// CHECK-NEXT:      gpu.barrier
// CHECK:           arith.xori
// CHECK-COUNT-8:   nvgpu.device_async_copy {{.*}} to memref<256x64xbf16, #gpu.address_space<workgroup>>
// CHECK:           nvvm.cp.async.commit.group
// CHECK:           nvvm.cp.async.mbarrier.arrive %{{.*}} {noinc = true} : !llvm.ptr<3>
// CHECK:           scf.for {{.*}} iter_args(
// CHECK-NOT:         gpu.barrier
// CHECK:             nvvm.mbarrier.try_wait.parity
// CHECK-NEXT:        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK:             nvvm.mbarrier.try_wait.parity
// CHECK:             nvvm.mbarrier.try_wait.parity
// CHECK-COUNT-8:     nvgpu.device_async_copy {{.*}} to memref<256x64xbf16, #gpu.address_space<workgroup>>
// CHECK:             nvvm.cp.async.mbarrier.arrive %{{.*}} {noinc = true} : !llvm.ptr<3>
// CHECK:             arith.ori %{{.*}}, %c4611686293305360384_i64 : i64
// CHECK:             arith.ori %{{.*}}, %c4611686293372403712_i64 : i64
// CHECK:             llvm.inline_asm has_side_effects "{\0A.reg .pred accumulate, overwrite;\0A.reg .b64 desc<24>;{{.*}}wgmma.fence.sync.aligned;\0Awgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {$0, {{.*}}, $63}, desc0, desc1, overwrite, 1, 1, 0, 0;{{.*}}wgmma.commit_group.sync.aligned;\0Awgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {$64, {{.*}}, $127}, {${{[0-9]+}}, ${{[0-9]+}}, ${{[0-9]+}}, ${{[0-9]+}}}, desc16, accumulate, 1, 1, 1;{{.*}}wgmma.commit_group.sync.aligned;\0Awgmma.wait_group.sync.aligned 1;\0A}"
// CHECK:             nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// CHECK:             gpu.shuffle  xor
// CHECK:             llvm.inline_asm "ex2.approx.ftz.f32 $0, $1;", "=f,f"
// CHECK:             llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
// CHECK:             arith.truncf {{.*}} : f32 to bf16
// CHECK:             nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// CHECK:             scf.yield
// CHECK:           llvm.inline_asm has_side_effects "{{.*}}wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}accumulate, 1, 1, 1;{{.*}}wgmma.wait_group.sync.aligned 0;
// CHECK:         gpu.return
func.func @causal(%q: tensor<2x8x?x128xbf16>, %k: tensor<2x8x?x128xbf16>, %v: tensor<2x8x?x128xbf16>)
    -> (tensor<2x8x?x128xbf16>, tensor<2x8x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {causal, tiles = #attn.tiles<block_m = 128, block_n = 128>}
      : tensor<2x8x?x128xbf16>, tensor<2x8x?x128xbf16>, tensor<2x8x?x128xbf16>
      -> tensor<2x8x?x128xbf16>, tensor<2x8x?xf32>
  return %o, %l : tensor<2x8x?x128xbf16>, tensor<2x8x?xf32>
}

// -----

// Head dim 256 (f16): 64-key tiles, S from m64n64k16 and P V from
// m64n256k16; the V descriptor steps 64 keys x 128 bytes per panel.

// CHECK-LABEL: gpu.module @attnc_kernels
// CHECK:         gpu.func @wide(
// CHECK-SAME:      kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// CHECK:           memref.view {{.*}} to memref<512x64xf16, #gpu.address_space<workgroup>>
// CHECK:           scf.for
// CHECK:             memref.view {{.*}} to memref<256x64xf16, #gpu.address_space<workgroup>>
// CHECK:             arith.ori %{{.*}}, %c4611686293338849280_i64 : i64
// CHECK:             llvm.inline_asm has_side_effects "{{.*}}wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}overwrite, 1, 1, 0, 0;{{.*}}wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {{.*}}accumulate, 1, 1, 1;
func.func @wide(%q: tensor<1x2x?x256xf16>) -> (tensor<1x2x?x256xf16>, tensor<1x2x?xf32>) {
  %o, %l = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 128, block_n = 64>}
      : tensor<1x2x?x256xf16>, tensor<1x2x?x256xf16>, tensor<1x2x?x256xf16>
      -> tensor<1x2x?x256xf16>, tensor<1x2x?xf32>
  return %o, %l : tensor<1x2x?x256xf16>, tensor<1x2x?xf32>
}
