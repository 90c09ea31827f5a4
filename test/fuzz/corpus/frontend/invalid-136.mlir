func.func @grad_delta_accumulator(%o: tensor<1x2x8x16xf32>) {
  %d, %a = attn.attention_grad_delta %o, %o
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8xf32>, tensor<1x2x4x16xf32>
  return
}
