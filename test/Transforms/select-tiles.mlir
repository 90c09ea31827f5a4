// RUN: attn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(attn-select-tiles{target=host}))' | FileCheck %s --check-prefix=HOST
// RUN: attn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(attn-select-tiles{target=sm_90a}))' | FileCheck %s --check-prefix=GPU
// RUN: attn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(attn-select-tiles{target=sm_90a tensor-cores=mma-sync}))' | FileCheck %s --check-prefix=SYNC

// Dynamic lengths get the target's default tiles: on sm_90a those of the
// warpgroup (wgmma) kernel for 16-bit inputs and head dims that are
// multiples of 64.
// HOST-LABEL: func.func @dynamic
// HOST:         tiles = #attn.tiles<block_m = 64, block_n = 64>
// GPU-LABEL:  func.func @dynamic
// GPU:          tiles = #attn.tiles<block_m = 128, block_n = 128>
// With tensor-cores=mma-sync, the mma.sync kernel's tiles.
// SYNC-LABEL: func.func @dynamic
// SYNC:         tiles = #attn.tiles<block_m = 64, block_n = 64>
func.func @dynamic(%q: tensor<?x4x?x128xbf16>) -> (tensor<?x4x?x128xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %q, %q
      : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>
      -> tensor<?x4x?x128xbf16>, tensor<?x4x?xf32>
  return %o, %l : tensor<?x4x?x128xbf16>, tensor<?x4x?xf32>
}

// -----

// Head dim 256 takes 64-key tiles on the warpgroup kernel; head dim 96 is no
// whole number of 64-element panels and takes the mma.sync kernel's tiles;
// f32 takes the scalar kernel's.
// GPU-LABEL:  func.func @wide
// GPU:          tiles = #attn.tiles<block_m = 128, block_n = 64>
// SYNC-LABEL: func.func @wide
// SYNC:         tiles = #attn.tiles<block_m = 64, block_n = 64>
// GPU-LABEL:  func.func @odd_panels
// GPU:          tiles = #attn.tiles<block_m = 64, block_n = 64>
// GPU-LABEL:  func.func @narrow_odd_panels
// GPU:          tiles = #attn.tiles<block_m = 128, block_n = 64>
// GPU-LABEL:  func.func @single
// GPU:          tiles = #attn.tiles<block_m = 64, block_n = 64>
func.func @wide(%q: tensor<?x4x?x256xf16>) -> (tensor<?x4x?x256xf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %q, %q
      : tensor<?x4x?x256xf16>, tensor<?x4x?x256xf16>, tensor<?x4x?x256xf16>
      -> tensor<?x4x?x256xf16>, tensor<?x4x?xf32>
  return %o, %l : tensor<?x4x?x256xf16>, tensor<?x4x?xf32>
}
func.func @odd_panels(%q: tensor<?x4x?x96xbf16>) -> (tensor<?x4x?x96xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %q, %q
      : tensor<?x4x?x96xbf16>, tensor<?x4x?x96xbf16>, tensor<?x4x?x96xbf16>
      -> tensor<?x4x?x96xbf16>, tensor<?x4x?xf32>
  return %o, %l : tensor<?x4x?x96xbf16>, tensor<?x4x?xf32>
}
func.func @narrow_odd_panels(%q: tensor<?x4x?x32xbf16>) -> (tensor<?x4x?x32xbf16>, tensor<?x4x?xf32>) {
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

// Short static lengths shrink the tile to the next power of two; wide heads
// take smaller GPU tiles (the f32 tiles live in shared memory).
// HOST-LABEL: func.func @short
// HOST:         tiles = #attn.tiles<block_m = 8, block_n = 32>
// GPU-LABEL:  func.func @short
// GPU:          tiles = #attn.tiles<block_m = 8, block_n = 32>
func.func @short(%q: tensor<1x4x7x256xf32>, %k: tensor<1x4x20x256xf32>) -> (tensor<1x4x7x256xf32>, tensor<1x4x7xf32>) {
  %o, %l = attn.attention %q, %k, %k
      : tensor<1x4x7x256xf32>, tensor<1x4x20x256xf32>, tensor<1x4x20x256xf32>
      -> tensor<1x4x7x256xf32>, tensor<1x4x7xf32>
  return %o, %l : tensor<1x4x7x256xf32>, tensor<1x4x7xf32>
}

// -----

// A pinned configuration is kept.
// HOST-LABEL: func.func @pinned
// HOST:         tiles = #attn.tiles<block_m = 16, block_n = 16>
// GPU-LABEL:  func.func @pinned
// GPU:          tiles = #attn.tiles<block_m = 16, block_n = 16>
func.func @pinned(%q: tensor<1x4x?x64xf32>) -> (tensor<1x4x?x64xf32>, tensor<1x4x?xf32>) {
  %o, %l = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 16, block_n = 16>}
      : tensor<1x4x?x64xf32>, tensor<1x4x?x64xf32>, tensor<1x4x?x64xf32>
      -> tensor<1x4x?x64xf32>, tensor<1x4x?xf32>
  return %o, %l : tensor<1x4x?x64xf32>, tensor<1x4x?xf32>
}
