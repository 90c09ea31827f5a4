func.func @attention_tiles_negative_block_m(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = -64, block_n = 32>}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}
