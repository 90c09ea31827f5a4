func.func @pack_group_wgmma(%q: tensor<1x32x1x64xbf16>, %k: tensor<1x8x?x64xbf16>) {
  %o, %l = attn.attention %q, %k, %k {tiles = #attn.tiles<block_m = 64, block_n = 64, mma = wgmma, pack_group = true>}
      : tensor<1x32x1x64xbf16>, tensor<1x8x?x64xbf16>, tensor<1x8x?x64xbf16>
      -> tensor<1x32x1x64xbf16>, tensor<1x32x1xf32>
  return
}
