func.func @grad_kv_delta_shape(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>, %d: tensor<1x2x7xf32>) {
  %dk, %dv = attn.attention_grad_kv %q, %q, %q, %l, %d, %q
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x7xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
  return
}
