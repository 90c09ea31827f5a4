func.func @attention_tiles_wgmma_f32(%q: tensor<1x4x64x64xf32>) {
  %out, %lse = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 64, block_n = 64, mma = wgmma>}
      : tensor<1x4x64x64xf32>, tensor<1x4x64x64xf32>, tensor<1x4x64x64xf32>
      -> tensor<1x4x64x64xf32>, tensor<1x4x64xf32>
  return
}
