func.func @attention_tiles_wgmma_rows_not_multiple_of_64(%q: tensor<1x4x64x64xbf16>) {
  %out, %lse = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 96, block_n = 64, mma = wgmma>}
      : tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>
      -> tensor<1x4x64x64xbf16>, tensor<1x4x64xf32>
  return
}
