func.func @attention_tiles_mma(%f: tensor<1x4x64x32xf32>, %s: tensor<1x4x64x16xf16>,
                               %w: tensor<1x4x64x256xbf16>, %w64: tensor<1x4x64x64xbf16>)
    -> (tensor<1x4x64x32xf32>, tensor<1x4x64x16xf16>, tensor<1x4x64x256xbf16>, tensor<1x4x64x64xbf16>) {
  %o0, %l0 = attn.attention %f, %f, %f {tiles = #attn.tiles<block_m = 1, block_n = 3, mma = none>}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  %o1, %l1 = attn.attention %s, %s, %s {causal, tiles = #attn.tiles<block_m = 16, block_n = 256, mma = mma_sync>}
      : tensor<1x4x64x16xf16>, tensor<1x4x64x16xf16>, tensor<1x4x64x16xf16>
      -> tensor<1x4x64x16xf16>, tensor<1x4x64xf32>
  %o2, %l2 = attn.attention %w, %w, %w {tiles = #attn.tiles<block_m = 192, block_n = 64, mma = wgmma>}
      : tensor<1x4x64x256xbf16>, tensor<1x4x64x256xbf16>, tensor<1x4x64x256xbf16>
      -> tensor<1x4x64x256xbf16>, tensor<1x4x64xf32>
  %o3, %l3 = attn.attention %w64, %w64, %w64 {tiles = #attn.tiles<block_m = 64, block_n = 128, mma = wgmma>}
      : tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>
      -> tensor<1x4x64x64xbf16>, tensor<1x4x64xf32>
  return %o0, %o1, %o2, %o3 : tensor<1x4x64x32xf32>, tensor<1x4x64x16xf16>, tensor<1x4x64x256xbf16>, tensor<1x4x64x64xbf16>
}
