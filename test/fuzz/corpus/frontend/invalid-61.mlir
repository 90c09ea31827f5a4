func.func @attention_tiles_mma_sync_v_head_dim(%q: tensor<1x4x64x32xf16>, %v: tensor<1x4x64x24xf16>) {
  %out, %lse = attn.attention %q, %q, %v {tiles = #attn.tiles<block_m = 64, block_n = 64, mma = mma_sync>}
      : tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>, tensor<1x4x64x24xf16>
      -> tensor<1x4x64x24xf16>, tensor<1x4x64xf32>
  return
}
