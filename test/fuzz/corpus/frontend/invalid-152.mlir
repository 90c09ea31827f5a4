func.func @combine_out_type(%po: tensor<8x1x4x1x32xf32>, %pl: tensor<8x1x4x1xf32>) {
  %o, %l = attn.attention_combine %po, %pl
      : tensor<8x1x4x1x32xf32>, tensor<8x1x4x1xf32> -> tensor<1x4x1x32xi8>, tensor<1x4x1xf32>
  return
}
