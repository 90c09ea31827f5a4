func.func @attention_split_and_combine(%q: tensor<?x32x1x128xbf16>, %k: tensor<?x8x?x128xbf16>)
    -> (tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>) {
  %po, %pl = attn.attention_split %q, %k, %k {causal, bottom_right, tiles = #attn.tiles<block_m = 16, block_n = 64, mma = mma_sync, pack_group = true>}
      : tensor<?x32x1x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>
      -> tensor<16x?x32x1x128xf32>, tensor<16x?x32x1xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %c7 = arith.constant 7 : index
      %ok = arith.cmpi uge, %ki, %c7 : index
      attn.yield %ok : i1
    }
  %o, %l = attn.attention_combine %po, %pl {block_size = 256}
      : tensor<16x?x32x1x128xf32>, tensor<16x?x32x1xf32>
      -> tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>
  return %o, %l : tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>
}
