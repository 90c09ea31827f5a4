// RUN: attn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(attn-kernel-config{target=host}))' | FileCheck %s --check-prefix=HOST
// RUN: attn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(attn-kernel-config{target=sm_90a}))' | FileCheck %s --check-prefix=GPU
// RUN: attn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(attn-kernel-config{target=sm_90a tensor-cores=mma-sync}))' | FileCheck %s --check-prefix=SYNC
// The host target is the default.
// RUN: attn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(attn-kernel-config))' | FileCheck %s --check-prefix=HOST
// kernel-schedule gives every wgmma kernel of two or more warpgroups the
// option only causal ones up to head dim 128 get by default: ping_pong.
// RUN: attn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(attn-kernel-config{target=sm_90a kernel-schedule=ping-pong}))' | FileCheck %s --check-prefix=SCHED
// In the program pipeline it configures the kernel functions of @attnc_kernels.
// RUN: attn-opt %s -split-input-file --attnc-programs='target=sm_90a' | FileCheck %s --check-prefix=PIPE

// Dynamic lengths get the target's default tiles: 64 x 64 on the host
// (no tensor-core kind); on sm_90a those of the warpgroup (wgmma) kernel for
// 16-bit inputs and head dims that are multiples of 16 (with a producer
// warpgroup beside two consumer warpgroups), with tensor-cores=mma-sync the
// mma.sync kernel's.
// HOST-LABEL: func.func @dynamic
// HOST:         tiles = #attn.tiles<block_m = 64, block_n = 64>}
// GPU-LABEL:  func.func @dynamic
// GPU:          tiles = #attn.tiles<block_m = 128, block_n = 128, mma = wgmma, producer = true, tma = true>}
// SYNC-LABEL: func.func @dynamic
// SYNC:         tiles = #attn.tiles<block_m = 64, block_n = 64, mma = mma_sync>}
// SCHED-LABEL: func.func @dynamic
// SCHED:         tiles = #attn.tiles<block_m = 128, block_n = 128, mma = wgmma, producer = true, tma = true, ping_pong = true>}
func.func @dynamic(%q: tensor<?x4x?x128xbf16>) -> (tensor<?x4x?x128xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %q, %q
      : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>
      -> tensor<?x4x?x128xbf16>, tensor<?x4x?xf32>
  return %o, %l : tensor<?x4x?x128xbf16>, tensor<?x4x?xf32>
}

// -----

// Head dim 64: three warpgroups (192 rows) on wgmma, two with a score
// region that applies math to the score or beside a mask region (their
// per-element work needs the registers); math on the indices alone (ALiBi's
// slope) keeps three. Then a producer
// warpgroup copying the tiles by TMA (beside two or three consumers, head
// dim 256 included); 128-row blocks on mma.sync. Head dim 256 takes 64-key tiles on the
// warpgroup kernel; head dims 96 and 32 fill 64-element panels partly and
// take it too, as 128 and 64 would (the mma.sync kernel only with
// tensor-cores=mma-sync); f32 takes the scalar kernel.
// HOST-LABEL: func.func @narrow
// HOST:         tiles = #attn.tiles<block_m = 64, block_n = 64>}
// GPU-LABEL:  func.func @narrow
// GPU:          tiles = #attn.tiles<block_m = 192, block_n = 128, mma = wgmma, producer = true, tma = true>}
// SCHED-LABEL: func.func @narrow
// SCHED:         tiles = #attn.tiles<block_m = 192, block_n = 128, mma = wgmma, producer = true, tma = true, ping_pong = true>}
// SYNC-LABEL: func.func @narrow
// SYNC:         tiles = #attn.tiles<block_m = 128, block_n = 64, mma = mma_sync>}
// GPU-LABEL:  func.func @narrow_scored
// GPU:          tiles = #attn.tiles<block_m = 128, block_n = 128, mma = wgmma, producer = true, tma = true>}
// SYNC-LABEL: func.func @narrow_scored
// SYNC:         tiles = #attn.tiles<block_m = 128, block_n = 64, mma = mma_sync>}
// GPU-LABEL:  func.func @narrow_biased
// GPU:          tiles = #attn.tiles<block_m = 192, block_n = 128, mma = wgmma, producer = true, tma = true>}
// GPU-LABEL:  func.func @narrow_biased_masked
// GPU:          tiles = #attn.tiles<block_m = 128, block_n = 64, mma = wgmma, producer = true, tma = true>}
// GPU-LABEL:  func.func @wide
// GPU:          tiles = #attn.tiles<block_m = 128, block_n = 64, mma = wgmma, producer = true, tma = true>}
// SCHED-LABEL: func.func @wide
// SCHED:         tiles = #attn.tiles<block_m = 128, block_n = 64, mma = wgmma, producer = true, tma = true, ping_pong = true>}
// SYNC-LABEL: func.func @wide
// SYNC:         tiles = #attn.tiles<block_m = 64, block_n = 64, mma = mma_sync>}
// A mask region beside a producer takes 64-key tiles, which leave its
// consumers the registers to evaluate it.
// GPU-LABEL:  func.func @masked
// GPU:          tiles = #attn.tiles<block_m = 128, block_n = 64, mma = wgmma, producer = true, tma = true>}
// Above head dim 128 a mask region keeps its kernel without a producer.
// GPU-LABEL:  func.func @wide_masked
// GPU:          tiles = #attn.tiles<block_m = 128, block_n = 64, mma = wgmma>}
// GPU-LABEL:  func.func @wide_scored
// GPU:          tiles = #attn.tiles<block_m = 128, block_n = 64, mma = wgmma, producer = true, tma = true>}
// GPU-LABEL:  func.func @partial_panels
// GPU:          tiles = #attn.tiles<block_m = 128, block_n = 128, mma = wgmma, producer = true, tma = true>}
// SYNC-LABEL: func.func @partial_panels
// SYNC:         tiles = #attn.tiles<block_m = 64, block_n = 64, mma = mma_sync>}
// GPU-LABEL:  func.func @narrow_partial_panels
// GPU:          tiles = #attn.tiles<block_m = 192, block_n = 128, mma = wgmma, producer = true, tma = true>}
// SYNC-LABEL: func.func @narrow_partial_panels
// SYNC:         tiles = #attn.tiles<block_m = 128, block_n = 64, mma = mma_sync>}
// GPU-LABEL:  func.func @single
// GPU:          tiles = #attn.tiles<block_m = 64, block_n = 64, mma = none>}
// SYNC-LABEL: func.func @single
// SYNC:         tiles = #attn.tiles<block_m = 64, block_n = 64, mma = none>}
func.func @narrow(%q: tensor<?x4x?x64xf16>) -> tensor<?x4x?x64xf16> {
  %o, %l = attn.attention %q, %q, %q
      : tensor<?x4x?x64xf16>, tensor<?x4x?x64xf16>, tensor<?x4x?x64xf16>
      -> tensor<?x4x?x64xf16>, tensor<?x4x?xf32>
  return %o : tensor<?x4x?x64xf16>
}
func.func @narrow_scored(%q: tensor<?x4x?x64xf16>) -> tensor<?x4x?x64xf16> {
  %o, %l = attn.attention %q, %q, %q
      : tensor<?x4x?x64xf16>, tensor<?x4x?x64xf16>, tensor<?x4x?x64xf16>
      -> tensor<?x4x?x64xf16>, tensor<?x4x?xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %t = math.tanh %s : f32
      attn.yield %t : f32
    }
  return %o : tensor<?x4x?x64xf16>
}
func.func @narrow_biased(%q: tensor<?x4x?x64xf16>) -> tensor<?x4x?x64xf16> {
  %o, %l = attn.attention %q, %q, %q
      : tensor<?x4x?x64xf16>, tensor<?x4x?x64xf16>, tensor<?x4x?x64xf16>
      -> tensor<?x4x?x64xf16>, tensor<?x4x?xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %hi = arith.index_cast %h : index to i64
      %hf = arith.sitofp %hi : i64 to f32
      %slope = math.exp2 %hf : f32
      %d = arith.subi %qi, %ki : index
      %di = arith.index_cast %d : index to i64
      %df = arith.sitofp %di : i64 to f32
      %bias = arith.mulf %slope, %df : f32
      %r = arith.subf %s, %bias : f32
      attn.yield %r : f32
    }
  return %o : tensor<?x4x?x64xf16>
}
func.func @narrow_biased_masked(%q: tensor<?x4x?x64xf16>) -> tensor<?x4x?x64xf16> {
  %o, %l = attn.attention %q, %q, %q
      : tensor<?x4x?x64xf16>, tensor<?x4x?x64xf16>, tensor<?x4x?x64xf16>
      -> tensor<?x4x?x64xf16>, tensor<?x4x?xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %ok = arith.cmpi ne, %qi, %ki : index
      attn.yield %ok : i1
    }
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %d = arith.subi %qi, %ki : index
      %di = arith.index_cast %d : index to i64
      %df = arith.sitofp %di : i64 to f32
      %r = arith.subf %s, %df : f32
      attn.yield %r : f32
    }
  return %o : tensor<?x4x?x64xf16>
}
func.func @wide(%q: tensor<?x4x?x256xf16>) -> (tensor<?x4x?x256xf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %q, %q
      : tensor<?x4x?x256xf16>, tensor<?x4x?x256xf16>, tensor<?x4x?x256xf16>
      -> tensor<?x4x?x256xf16>, tensor<?x4x?xf32>
  return %o, %l : tensor<?x4x?x256xf16>, tensor<?x4x?xf32>
}
func.func @masked(%q: tensor<?x4x?x128xbf16>) -> tensor<?x4x?x128xbf16> {
  %o, %l = attn.attention %q, %q, %q
      : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>
      -> tensor<?x4x?x128xbf16>, tensor<?x4x?xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %ok = arith.cmpi ne, %qi, %ki : index
      attn.yield %ok : i1
    }
  return %o : tensor<?x4x?x128xbf16>
}
func.func @wide_masked(%q: tensor<?x4x?x256xbf16>) -> tensor<?x4x?x256xbf16> {
  %o, %l = attn.attention %q, %q, %q
      : tensor<?x4x?x256xbf16>, tensor<?x4x?x256xbf16>, tensor<?x4x?x256xbf16>
      -> tensor<?x4x?x256xbf16>, tensor<?x4x?xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %ok = arith.cmpi ne, %qi, %ki : index
      attn.yield %ok : i1
    }
  return %o : tensor<?x4x?x256xbf16>
}
func.func @wide_scored(%q: tensor<?x4x?x256xf16>) -> tensor<?x4x?x256xf16> {
  %o, %l = attn.attention %q, %q, %q
      : tensor<?x4x?x256xf16>, tensor<?x4x?x256xf16>, tensor<?x4x?x256xf16>
      -> tensor<?x4x?x256xf16>, tensor<?x4x?xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %t = math.tanh %s : f32
      attn.yield %t : f32
    }
  return %o : tensor<?x4x?x256xf16>
}
func.func @partial_panels(%q: tensor<?x4x?x96xbf16>) -> (tensor<?x4x?x96xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %q, %q
      : tensor<?x4x?x96xbf16>, tensor<?x4x?x96xbf16>, tensor<?x4x?x96xbf16>
      -> tensor<?x4x?x96xbf16>, tensor<?x4x?xf32>
  return %o, %l : tensor<?x4x?x96xbf16>, tensor<?x4x?xf32>
}
func.func @narrow_partial_panels(%q: tensor<?x4x?x32xbf16>) -> (tensor<?x4x?x32xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %q, %q
      : tensor<?x4x?x32xbf16>, tensor<?x4x?x32xbf16>, tensor<?x4x?x32xbf16>
      -> tensor<?x4x?x32xbf16>, tensor<?x4x?xf32>
  return %o, %l : tensor<?x4x?x32xbf16>, tensor<?x4x?xf32>
}
func.func @single(%q: tensor<?x4x?x128xf32>) -> (tensor<?x4x?x128xf32>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %q, %q
      : tensor<?x4x?x128xf32>, tensor<?x4x?x128xf32>, tensor<?x4x?x128xf32>
      -> tensor<?x4x?x128xf32>, tensor<?x4x?xf32>
  return %o, %l : tensor<?x4x?x128xf32>, tensor<?x4x?xf32>
}

// -----

// Short static lengths shrink the tile to the next power of two; wide f32
// heads take 32 x 32 GPU tiles (the scalar kernel's f32 tiles live in
// shared memory). Tiles fitted to the lengths choose their tensor-core
// kind as pinned ones do: 128 x 128 is still a wgmma tile. Fewer than 16
// rows of 16-bit inputs take an mma.sync warp of 16 rows over 32 keys
// instead of a tile no tensor-core kernel has.
// HOST-LABEL: func.func @short
// HOST:         tiles = #attn.tiles<block_m = 8, block_n = 32>}
// GPU-LABEL:  func.func @short
// GPU:          tiles = #attn.tiles<block_m = 8, block_n = 32, mma = none>}
// HOST-LABEL: func.func @wide_f32
// HOST:         tiles = #attn.tiles<block_m = 64, block_n = 64>}
// GPU-LABEL:  func.func @wide_f32
// GPU:          tiles = #attn.tiles<block_m = 32, block_n = 32, mma = none>}
// GPU-LABEL:  func.func @fitted_wgmma
// GPU:          tiles = #attn.tiles<block_m = 128, block_n = 128, mma = wgmma, producer = true, tma = true>}
// SYNC-LABEL: func.func @fitted_wgmma
// SYNC:         tiles = #attn.tiles<block_m = 128, block_n = 64, mma = mma_sync>}
// GPU-LABEL:  func.func @fitted_short
// GPU:          tiles = #attn.tiles<block_m = 16, block_n = 32, mma = mma_sync>}
// A length between the preferred tile and the next power of two keeps the
// preferred tile (150 rows: 192, not 256, which no wgmma kernel has).
// HOST-LABEL: func.func @fitted_capped
// HOST:         tiles = #attn.tiles<block_m = 64, block_n = 64>}
// GPU-LABEL:  func.func @fitted_capped
// GPU:          tiles = #attn.tiles<block_m = 192, block_n = 128, mma = wgmma, producer = true, tma = true>}
func.func @short(%q: tensor<1x4x7x256xf32>, %k: tensor<1x4x20x256xf32>) -> (tensor<1x4x7x256xf32>, tensor<1x4x7xf32>) {
  %o, %l = attn.attention %q, %k, %k
      : tensor<1x4x7x256xf32>, tensor<1x4x20x256xf32>, tensor<1x4x20x256xf32>
      -> tensor<1x4x7x256xf32>, tensor<1x4x7xf32>
  return %o, %l : tensor<1x4x7x256xf32>, tensor<1x4x7xf32>
}
func.func @wide_f32(%q: tensor<1x4x?x256xf32>) -> tensor<1x4x?x256xf32> {
  %o, %l = attn.attention %q, %q, %q
      : tensor<1x4x?x256xf32>, tensor<1x4x?x256xf32>, tensor<1x4x?x256xf32>
      -> tensor<1x4x?x256xf32>, tensor<1x4x?xf32>
  return %o : tensor<1x4x?x256xf32>
}
func.func @fitted_wgmma(%q: tensor<1x4x100x64xbf16>) -> tensor<1x4x100x64xbf16> {
  %o, %l = attn.attention %q, %q, %q
      : tensor<1x4x100x64xbf16>, tensor<1x4x100x64xbf16>, tensor<1x4x100x64xbf16>
      -> tensor<1x4x100x64xbf16>, tensor<1x4x100xf32>
  return %o : tensor<1x4x100x64xbf16>
}
func.func @fitted_short(%q: tensor<1x4x7x64xbf16>, %k: tensor<1x4x20x64xbf16>) -> tensor<1x4x7x64xbf16> {
  %o, %l = attn.attention %q, %k, %k
      : tensor<1x4x7x64xbf16>, tensor<1x4x20x64xbf16>, tensor<1x4x20x64xbf16>
      -> tensor<1x4x7x64xbf16>, tensor<1x4x7xf32>
  return %o : tensor<1x4x7x64xbf16>
}
func.func @fitted_capped(%q: tensor<1x4x150x64xbf16>) -> tensor<1x4x150x64xbf16> {
  %o, %l = attn.attention %q, %q, %q
      : tensor<1x4x150x64xbf16>, tensor<1x4x150x64xbf16>, tensor<1x4x150x64xbf16>
      -> tensor<1x4x150x64xbf16>, tensor<1x4x150xf32>
  return %o : tensor<1x4x150x64xbf16>
}

// -----

// Pinned tiles are kept, and on a GPU get the tensor-core kind they fit:
// the mma.sync kernel's tiles (128 x 64 at head dim 64) take mma.sync even
// where wgmma is preferred; other multiples of 64 rows by 64 or 128 keys
// take wgmma where it applies (mma.sync with tensor-cores=mma-sync); any
// other multiples of 16 take mma.sync, the rest the scalar kernel
// (@fitted_none above).
// HOST-LABEL: func.func @pinned_sync
// HOST:         tiles = #attn.tiles<block_m = 128, block_n = 64>}
// GPU-LABEL:  func.func @pinned_sync
// GPU:          tiles = #attn.tiles<block_m = 128, block_n = 64, mma = mma_sync>}
// SYNC-LABEL: func.func @pinned_sync
// SYNC:         tiles = #attn.tiles<block_m = 128, block_n = 64, mma = mma_sync>}
// GPU-LABEL:  func.func @pinned_wgmma
// GPU:          tiles = #attn.tiles<block_m = 64, block_n = 128, mma = wgmma>}
// SYNC-LABEL: func.func @pinned_wgmma
// SYNC:         tiles = #attn.tiles<block_m = 64, block_n = 128, mma = mma_sync>}
// HOST-LABEL: func.func @pinned_small
// HOST:         tiles = #attn.tiles<block_m = 16, block_n = 16>}
// GPU-LABEL:  func.func @pinned_small
// GPU:          tiles = #attn.tiles<block_m = 16, block_n = 16, mma = mma_sync>}
func.func @pinned_sync(%q: tensor<?x4x?x64xbf16>) -> tensor<?x4x?x64xbf16> {
  %o, %l = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 128, block_n = 64>}
      : tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>
      -> tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>
  return %o : tensor<?x4x?x64xbf16>
}
func.func @pinned_wgmma(%q: tensor<?x4x?x128xbf16>) -> tensor<?x4x?x128xbf16> {
  %o, %l = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 64, block_n = 128>}
      : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>
      -> tensor<?x4x?x128xbf16>, tensor<?x4x?xf32>
  return %o : tensor<?x4x?x128xbf16>
}
func.func @pinned_small(%q: tensor<1x4x?x64xbf16>) -> tensor<1x4x?x64xbf16> {
  %o, %l = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 16, block_n = 16>}
      : tensor<1x4x?x64xbf16>, tensor<1x4x?x64xbf16>, tensor<1x4x?x64xbf16>
      -> tensor<1x4x?x64xbf16>, tensor<1x4x?xf32>
  return %o : tensor<1x4x?x64xbf16>
}

// -----

// With tensor-cores=mma-sync, large pinned tiles take mma.sync, which fits
// them (128 x 128 at head dim 128: 174080 bytes of shared memory), not the
// scalar kernel, whose f32 tiles would need 330240.
// GPU-LABEL:  func.func @pinned_large
// GPU:          tiles = #attn.tiles<block_m = 128, block_n = 128, mma = wgmma>}
// SYNC-LABEL: func.func @pinned_large
// SYNC:         tiles = #attn.tiles<block_m = 128, block_n = 128, mma = mma_sync>}
func.func @pinned_large(%q: tensor<?x4x?x128xbf16>) -> tensor<?x4x?x128xbf16> {
  %o, %l = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 128, block_n = 128>}
      : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>
      -> tensor<?x4x?x128xbf16>, tensor<?x4x?xf32>
  return %o : tensor<?x4x?x128xbf16>
}

// -----

// The host has no tensor-core kinds: a pinned `mma = none` is dropped.
// HOST-LABEL: func.func @pinned_none
// HOST:         tiles = #attn.tiles<block_m = 128, block_n = 128>}
// GPU-LABEL:  func.func @pinned_none
// GPU:          tiles = #attn.tiles<block_m = 128, block_n = 128, mma = none>}
// SYNC-LABEL: func.func @pinned_none
// SYNC:         tiles = #attn.tiles<block_m = 128, block_n = 128, mma = none>}
func.func @pinned_none(%q: tensor<?x4x?x128xbf16>) -> tensor<?x4x?x128xbf16> {
  %o, %l = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 128, block_n = 128, mma = none>}
      : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>
      -> tensor<?x4x?x128xbf16>, tensor<?x4x?xf32>
  return %o : tensor<?x4x?x128xbf16>
}

// -----

// A cast gets its block size: 16384 elements per host block, 2048 per GPU
// block (256 threads x 8); a pinned one is kept.
// HOST-LABEL: func.func @cast
// HOST:         attn.cast %{{.*}} {block_size = 16384 : i64, scale = 2.000000e+00 : f32}
// HOST:         attn.cast %{{.*}} {block_size = 7 : i64}
// GPU-LABEL:  func.func @cast
// GPU:          attn.cast %{{.*}} {block_size = 2048 : i64, scale = 2.000000e+00 : f32}
// GPU:          attn.cast %{{.*}} {block_size = 7 : i64}
// SYNC-LABEL: func.func @cast
// SYNC:         attn.cast %{{.*}} {block_size = 2048 : i64, scale = 2.000000e+00 : f32}
func.func @cast(%x: tensor<?x8xf32>) -> (tensor<?x8xbf16>, tensor<?x8xf16>) {
  %a = attn.cast %x {scale = 2.0 : f32} : tensor<?x8xf32> to tensor<?x8xbf16>
  %b = attn.cast %x {block_size = 7 : i64} : tensor<?x8xf32> to tensor<?x8xf16>
  return %a, %b : tensor<?x8xbf16>, tensor<?x8xf16>
}

// -----

// An elementwise kernel gets its block size as a cast does.
// HOST-LABEL: func.func @elementwise
// HOST:         attn.elementwise %{{.*}} {block_size = 16384 : i64}
// GPU-LABEL:  func.func @elementwise
// GPU:          attn.elementwise %{{.*}} {block_size = 2048 : i64}
// SYNC-LABEL: func.func @elementwise
// SYNC:         attn.elementwise %{{.*}} {block_size = 2048 : i64}
func.func @elementwise(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %y = attn.elementwise %x : tensor<?x8xf32> -> tensor<?x8xf32> {
  ^bb0(%a: f32):
    %t = math.tanh %a : f32
    attn.yield %t : f32
  }
  return %y : tensor<?x8xf32>
}

// -----

// Program formation's kernel functions are configured where they are: the
// program pipeline runs the pass on the functions of @attnc_kernels.
// PIPE-LABEL: func.func @in_kernels(
// PIPE:         attnrt.launch @attnc_kernels::@in_kernels_attention0
// PIPE:         attnrt.launch @attnc_kernels::@in_kernels_cast1
// PIPE-LABEL: func.func @in_kernels_attention0(
// PIPE:         attn.attention {{.*}}tiles = #attn.tiles<block_m = 192, block_n = 128, mma = wgmma, producer = true, tma = true>}
// PIPE-LABEL: func.func @in_kernels_cast1(
// PIPE:         attn.cast {{.*}}{block_size = 2048 : i64}
func.func @in_kernels(%q: tensor<?x4x?x64xbf16>) -> tensor<?x4x?x64xf32> {
  %o, %l = attn.attention %q, %q, %q
      : tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>
      -> tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>
  %c = attn.cast %o : tensor<?x4x?x64xbf16> to tensor<?x4x?x64xf32>
  return %c : tensor<?x4x?x64xf32>
}

// -----

// Gradient kernels: 64 x 64 tiles on the host; on a GPU the wgmma kernels
// for 16-bit inputs up to head dim 128 (key/value: 64 queries x 128 keys;
// query: 128 queries x 64 keys; warp-specialized, the producer loading by
// TMA), else the scalar ones (f32: 32 x 32 at head dim 128, whose f32
// tiles live in shared memory); the delta kernel
// takes rows per block. Without wgmma both are mma.sync's (64 x 64 up to
// head dim 128).
// HOST-LABEL: func.func @gradient_kernels
// HOST:         attn.attention_grad_delta {{.*}}{block_size = 256 : i64}
// HOST:         attn.attention_grad_kv {{.*}}{tiles = #attn.tiles<block_m = 64, block_n = 64>}
// HOST:         attn.attention_grad_q {{.*}}{tiles = #attn.tiles<block_m = 64, block_n = 64>}
// GPU-LABEL:  func.func @gradient_kernels
// GPU:          attn.attention_grad_delta {{.*}}{block_size = 128 : i64}
// GPU:          attn.attention_grad_kv {{.*}}{tiles = #attn.tiles<block_m = 64, block_n = 128, mma = wgmma, producer = true, tma = true>}
// GPU:          attn.attention_grad_q {{.*}}{tiles = #attn.tiles<block_m = 128, block_n = 64, mma = wgmma, producer = true, tma = true>}
// GPU:          attn.attention_grad_q {{.*}}{tiles = #attn.tiles<block_m = 32, block_n = 32, mma = none>}
// SYNC-LABEL: func.func @gradient_kernels
// SYNC:         attn.attention_grad_kv {{.*}}{tiles = #attn.tiles<block_m = 64, block_n = 64, mma = mma_sync>}
// SYNC:         attn.attention_grad_q {{.*}}{tiles = #attn.tiles<block_m = 64, block_n = 64, mma = mma_sync>}
// PIPE-LABEL: func.func @gradient_kernels
func.func @gradient_kernels(%q: tensor<1x2x8x128xbf16>, %f: tensor<1x2x8x128xf32>, %l: tensor<1x2x8xf32>)
    -> (tensor<1x2x8x128xbf16>, tensor<1x2x8x128xbf16>, tensor<1x2x8x128xbf16>) {
  %delta, %acc = attn.attention_grad_delta %q, %q
      : tensor<1x2x8x128xbf16>, tensor<1x2x8x128xbf16> -> tensor<1x2x8xf32>, tensor<1x2x8x128xf32>
  %dk, %dv = attn.attention_grad_kv %q, %q, %q, %l, %delta, %q
      : tensor<1x2x8x128xbf16>, tensor<1x2x8x128xbf16>, tensor<1x2x8x128xbf16>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8x128xbf16>
      -> tensor<1x2x8x128xbf16>, tensor<1x2x8x128xbf16>
  %dq = attn.attention_grad_q %q, %q, %q, %l, %delta, %q
      : tensor<1x2x8x128xbf16>, tensor<1x2x8x128xbf16>, tensor<1x2x8x128xbf16>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8x128xbf16>
      -> tensor<1x2x8x128xbf16>
  %fq = attn.attention_grad_q %f, %f, %f, %l, %delta, %f
      : tensor<1x2x8x128xf32>, tensor<1x2x8x128xf32>, tensor<1x2x8x128xf32>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8x128xf32>
      -> tensor<1x2x8x128xf32>
  return %dq, %dk, %dv : tensor<1x2x8x128xbf16>, tensor<1x2x8x128xbf16>, tensor<1x2x8x128xbf16>
}

// -----

// The key/value kernel that adds dq (head dim 64) keeps no producer: its
// consumers need the registers.
// GPU-LABEL:  func.func @gradient_kernel_adding_dq
// GPU:          attn.attention_grad_kv {{.*}}{tiles = #attn.tiles<block_m = 64, block_n = 128, mma = wgmma>}
func.func @gradient_kernel_adding_dq(%q: tensor<1x2x8x64xbf16>, %l: tensor<1x2x8xf32>)
    -> (tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>) {
  %delta, %acc = attn.attention_grad_delta %q, %q
      : tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16> -> tensor<1x2x8xf32>, tensor<1x2x8x64xf32>
  %dk, %dv, %acc1 = attn.attention_grad_kv %q, %q, %q, %l, %delta, %q, %acc
      : tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8x64xbf16>, tensor<1x2x8x64xf32>
      -> tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<1x2x8x64xf32>
  %dq = attn.cast %acc1 : tensor<1x2x8x64xf32> to tensor<1x2x8x64xbf16>
  return %dk, %dq : tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>
}

// -----

// Split-key attention on a static query length of at most 64 (decoding)
// takes mma.sync warps of 16 query rows, as few as hold the rows, over 32
// keys; with one query row and grouped-query attention the rows are the
// group's heads (pack_group), in one wgmma warpgroup of 64 rows over 64
// keys where wgmma applies (mma.sync warps otherwise); longer query lengths
// take attention's tiles. Whole attention on fewer than 16 query rows takes
// the same tiles. The host keeps its own. Combine kernels: a GPU thread per
// element.
// HOST-LABEL: func.func @key_ranges
// HOST:         attn.attention_split {{.*}}{tiles = #attn.tiles<block_m = 1, block_n = 64>}
// HOST:         attn.attention_combine {{.*}}{block_size = 16384 : i64}
// HOST:         attn.attention_split {{.*}}{tiles = #attn.tiles<block_m = 64, block_n = 64>}
// GPU-LABEL:  func.func @key_ranges
// GPU:          attn.attention_split {{.*}}{tiles = #attn.tiles<block_m = 16, block_n = 32, mma = mma_sync>}
// GPU:          attn.attention_combine {{.*}}{block_size = 256 : i64}
// GPU:          attn.attention_split {{.*}}{tiles = #attn.tiles<block_m = 48, block_n = 32, mma = mma_sync>}
// GPU:          attn.attention_split {{.*}}{tiles = #attn.tiles<block_m = 128, block_n = 128, mma = wgmma>}
// GPU:          attn.attention_split {{.*}}{tiles = #attn.tiles<block_m = 64, block_n = 64, mma = wgmma, pack_group = true>}
// GPU:          attn.attention {{.*}}{tiles = #attn.tiles<block_m = 64, block_n = 64, mma = wgmma, pack_group = true>}
// GPU:          attn.attention {{.*}}{tiles = #attn.tiles<block_m = 16, block_n = 128, mma = mma_sync>}
// SYNC-LABEL: func.func @key_ranges
// SYNC:         attn.attention_split {{.*}}{tiles = #attn.tiles<block_m = 16, block_n = 32, mma = mma_sync>}
// SYNC:         attn.attention_split {{.*}}{tiles = #attn.tiles<block_m = 48, block_n = 32, mma = mma_sync>}
// SYNC:         attn.attention_split {{.*}}{tiles = #attn.tiles<block_m = 64, block_n = 64, mma = mma_sync>}
// SYNC:         attn.attention_split {{.*}}{tiles = #attn.tiles<block_m = 16, block_n = 32, mma = mma_sync, pack_group = true>}
// SYNC:         attn.attention {{.*}}{tiles = #attn.tiles<block_m = 16, block_n = 32, mma = mma_sync, pack_group = true>}
// PIPE-LABEL: func.func @key_ranges
func.func @key_ranges(%q: tensor<?x8x1x128xbf16>, %q40: tensor<?x8x40x128xbf16>,
                      %q100: tensor<?x8x100x128xbf16>, %k: tensor<?x8x?x128xbf16>,
                      %q32: tensor<?x32x1x128xbf16>, %q16: tensor<1x8x16x128xbf16>,
                      %k16: tensor<1x8x512x128xbf16>)
    -> (tensor<?x8x1x128xbf16>, tensor<?x8x1xf32>) {
  %po, %pl = attn.attention_split %q, %k, %k
      : tensor<?x8x1x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>
      -> tensor<16x?x8x1x128xf32>, tensor<16x?x8x1xf32>
  %o, %l = attn.attention_combine %po, %pl
      : tensor<16x?x8x1x128xf32>, tensor<16x?x8x1xf32> -> tensor<?x8x1x128xbf16>, tensor<?x8x1xf32>
  %po40, %pl40 = attn.attention_split %q40, %k, %k
      : tensor<?x8x40x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>
      -> tensor<4x?x8x40x128xf32>, tensor<4x?x8x40xf32>
  %po100, %pl100 = attn.attention_split %q100, %k, %k
      : tensor<?x8x100x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>
      -> tensor<4x?x8x100x128xf32>, tensor<4x?x8x100xf32>
  %po32, %pl32 = attn.attention_split %q32, %k, %k
      : tensor<?x32x1x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>
      -> tensor<4x?x32x1x128xf32>, tensor<4x?x32x1xf32>
  // Whole attention: decoding packs its group.
  %wo, %wl = attn.attention %q32, %k, %k
      : tensor<?x32x1x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>
      -> tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>
  %so, %sl = attn.attention %q16, %k16, %k16
      : tensor<1x8x16x128xbf16>, tensor<1x8x512x128xbf16>, tensor<1x8x512x128xbf16>
      -> tensor<1x8x16x128xbf16>, tensor<1x8x16xf32>
  return %o, %l : tensor<?x8x1x128xbf16>, tensor<?x8x1xf32>
}

// -----

// A matmul is a cuBLASLt call on the GPU and the host's tiled loops on the
// host; a pinned choice stays.
// HOST-LABEL: func.func @matmul
// HOST: attn.matmul {{.*}} {tile = array<i64: 32, 64>}
// HOST: attn.matmul {{.*}} {tile = array<i64: 8, 8>}
// GPU-LABEL: func.func @matmul
// GPU: attn.matmul {{.*}} {library = "cublaslt"}
// GPU: attn.matmul {{.*}} {tile = array<i64: 8, 8>}
func.func @matmul(%a: tensor<?x64xbf16>, %b: tensor<64x32xbf16>)
    -> (tensor<?x32xbf16>, tensor<?x32xbf16>) {
  %c = attn.matmul %a, %b : tensor<?x64xbf16>, tensor<64x32xbf16> -> tensor<?x32xbf16>
  %d = attn.matmul %a, %b {tile = array<i64: 8, 8>} : tensor<?x64xbf16>, tensor<64x32xbf16> -> tensor<?x32xbf16>
  return %c, %d : tensor<?x32xbf16>, tensor<?x32xbf16>
}

// -----

// RMSNorm: a GPU block is 8 warps of a row (or partial row) each, a row
// sum's block 256 threads of a column each; host blocks are chunks of one
// thread's work.
// HOST-LABEL: func.func @rms_norm
// HOST: attn.rms_norm {{.*}}block_size = 64
// HOST: attn.rms_norm_grad {{.*}}{block_size = 1 : i64}
// HOST: attn.sum_rows {{.*}}{block_size = 1024 : i64}
// GPU-LABEL: func.func @rms_norm
// GPU: attn.rms_norm {{.*}}block_size = 8
// GPU: attn.rms_norm_grad {{.*}}{block_size = 8 : i64}
// GPU: attn.sum_rows {{.*}}{block_size = 32 : i64}
func.func @rms_norm(%x: tensor<?x64xbf16>, %w: tensor<64xbf16>)
    -> (tensor<?x64xbf16>, tensor<?x64xbf16>, tensor<64xbf16>) {
  %y, %rstd = attn.rms_norm %x, %w {epsilon = 1.0e-06 : f32}
      : tensor<?x64xbf16>, tensor<64xbf16> -> tensor<?x64xbf16>, tensor<?xf32>
  %dx, %dwp = attn.rms_norm_grad %x, %w, %rstd, %y
      : tensor<?x64xbf16>, tensor<64xbf16>, tensor<?xf32>, tensor<?x64xbf16>
      -> tensor<?x64xbf16>, tensor<512x64xf32>
  %dw = attn.sum_rows %dwp : tensor<512x64xf32> -> tensor<64xbf16>
  return %y, %dx, %dw : tensor<?x64xbf16>, tensor<?x64xbf16>, tensor<64xbf16>
}

// -----

// Causal forward kernels of two consumer warpgroups up to head dim 128
// take turns on the tensor cores by default; head dim 256, three
// warpgroups (head dim 64) and a window keep the intra-warpgroup overlap
// alone.
// GPU-LABEL: func.func @causal_turns
// GPU:         {causal, tiles = #attn.tiles<block_m = 128, block_n = 128, mma = wgmma, producer = true, tma = true, ping_pong = true>}
// GPU:         {causal, tiles = #attn.tiles<block_m = 128, block_n = 64, mma = wgmma, producer = true, tma = true>}
// GPU:         {causal, tiles = #attn.tiles<block_m = 192, block_n = 128, mma = wgmma, producer = true, tma = true>}
// GPU:         {causal, tiles = #attn.tiles<block_m = 128, block_n = 128, mma = wgmma, producer = true, tma = true>, window_left = 256 : i64}
// SYNC-LABEL: func.func @causal_turns
// SYNC-NOT:     ping_pong
func.func @causal_turns(%q: tensor<?x4x?x128xbf16>, %w: tensor<?x4x?x256xbf16>,
                        %n: tensor<?x4x?x64xbf16>)
    -> (tensor<?x4x?x128xbf16>, tensor<?x4x?x256xbf16>, tensor<?x4x?x64xbf16>,
        tensor<?x4x?x128xbf16>) {
  %o, %l = attn.attention %q, %q, %q {causal}
      : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>
      -> tensor<?x4x?x128xbf16>, tensor<?x4x?xf32>
  %ow, %lw = attn.attention %w, %w, %w {causal}
      : tensor<?x4x?x256xbf16>, tensor<?x4x?x256xbf16>, tensor<?x4x?x256xbf16>
      -> tensor<?x4x?x256xbf16>, tensor<?x4x?xf32>
  %on, %ln = attn.attention %n, %n, %n {causal}
      : tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>
      -> tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>
  %os, %ls = attn.attention %q, %q, %q {causal, window_left = 256}
      : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>
      -> tensor<?x4x?x128xbf16>, tensor<?x4x?xf32>
  return %o, %ow, %on, %os : tensor<?x4x?x128xbf16>, tensor<?x4x?x256xbf16>,
      tensor<?x4x?x64xbf16>, tensor<?x4x?x128xbf16>
}
