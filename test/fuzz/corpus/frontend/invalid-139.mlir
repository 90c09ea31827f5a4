func.func @grad_kv_dout_shape(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>, %do: tensor<1x2x8x8xf32>) {
  %dk, %dv = attn.attention_grad_kv %q, %q, %q, %l, %l, %do
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8x8xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
  return
}
