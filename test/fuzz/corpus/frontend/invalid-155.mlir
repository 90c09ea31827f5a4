func.func @combine_block_size(%po: tensor<8x1x4x1x32xf32>, %pl: tensor<8x1x4x1xf32>) {
  %o, %l = attn.attention_combine %po, %pl {block_size = 0}
      : tensor<8x1x4x1x32xf32>, tensor<8x1x4x1xf32> -> tensor<1x4x1x32xbf16>, tensor<1x4x1xf32>
  return
}
