func.func @grad_delta_block_size(%o: tensor<1x2x8x16xf32>) {
  %d, %a = attn.attention_grad_delta %o, %o {block_size = 0 : i64}
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
  return
}
