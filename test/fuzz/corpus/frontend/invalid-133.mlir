func.func @grad_delta_element(%o: tensor<1x2x8x16xi32>) {
  %d, %a = attn.attention_grad_delta %o, %o
      : tensor<1x2x8x16xi32>, tensor<1x2x8x16xi32> -> tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
  return
}
