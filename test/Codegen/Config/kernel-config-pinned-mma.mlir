// RUN: attn-opt %s --pass-pipeline='builtin.module(func.func(attn-kernel-config{target=sm_90a}))' | FileCheck %s
// RUN: attn-opt %s --pass-pipeline='builtin.module(func.func(attn-kernel-config{target=sm_90a tensor-cores=mma-sync}))' | FileCheck %s

// A pinned tensor-core kind is kept on a GPU whatever the tensor-cores
// option prefers: mma.sync on 128 x 128 tiles, where wgmma would be chosen,
// and wgmma with tensor-cores=mma-sync. (The host rejects both:
// kernel-config-invalid.mlir.)
// CHECK-LABEL: func.func @pinned_kinds
// CHECK:         tiles = #attn.tiles<block_m = 128, block_n = 128, mma = mma_sync>}
// CHECK:         tiles = #attn.tiles<block_m = 128, block_n = 64, mma = wgmma>}
func.func @pinned_kinds(%q: tensor<?x4x?x128xbf16>) -> (tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>) {
  %o1, %l1 = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 128, block_n = 128, mma = mma_sync>}
      : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>
      -> tensor<?x4x?x128xbf16>, tensor<?x4x?xf32>
  %o2, %l2 = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 128, block_n = 64, mma = wgmma>}
      : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>
      -> tensor<?x4x?x128xbf16>, tensor<?x4x?xf32>
  return %o1, %o2 : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>
}
