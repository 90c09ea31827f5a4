func.func @pack_group_rows(%q: tensor<1x32x2x64xbf16>, %k: tensor<1x8x?x64xbf16>) {
  %o, %l = attn.attention %q, %k, %k {tiles = #attn.tiles<block_m = 16, block_n = 32, mma = mma_sync, pack_group = true>}
      : tensor<1x32x2x64xbf16>, tensor<1x8x?x64xbf16>, tensor<1x8x?x64xbf16>
      -> tensor<1x32x2x64xbf16>, tensor<1x32x2xf32>
  return
}
