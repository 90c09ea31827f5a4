func.func @attention_tiles_mma_sync_not_multiple_of_16(%q: tensor<1x4x64x32xbf16>) {
  %out, %lse = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 64, block_n = 24, mma = mma_sync>}
      : tensor<1x4x64x32xbf16>, tensor<1x4x64x32xbf16>, tensor<1x4x64x32xbf16>
      -> tensor<1x4x64x32xbf16>, tensor<1x4x64xf32>
  return
}
