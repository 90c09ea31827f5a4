func.func @attention_tiles_wgmma_keys(%q: tensor<1x4x64x64xbf16>) {
  %out, %lse = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 128, block_n = 32, mma = wgmma>}
      : tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>
      -> tensor<1x4x64x64xbf16>, tensor<1x4x64xf32>
  return
}
