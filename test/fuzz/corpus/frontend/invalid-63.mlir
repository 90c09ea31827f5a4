func.func @attention_tiles_unknown_mma(%q: tensor<1x4x64x64xbf16>) {
  %out, %lse = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 64, block_n = 64, mma = tensor_cores>}
      : tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>
      -> tensor<1x4x64x64xbf16>, tensor<1x4x64xf32>
  return
}
