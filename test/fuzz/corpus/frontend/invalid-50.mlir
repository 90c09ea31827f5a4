func.func @attention_tiles_block_m_zero(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 0, block_n = 32>}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}
