func.func @grad_delta_shape(%o: tensor<1x2x8x16xf32>) {
  %d, %a = attn.attention_grad_delta %o, %o
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8xf16>, tensor<1x2x8x16xf32>
  return
}
