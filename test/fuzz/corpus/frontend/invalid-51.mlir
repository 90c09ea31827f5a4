func.func @attention_tiles_block_n_over_256(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 64, block_n = 257>}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}
