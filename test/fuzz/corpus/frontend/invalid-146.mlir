func.func @grad_q_dq_type(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>) {
  %dq = attn.attention_grad_q %q, %q, %q, %l, %l, %q
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xbf16>
  return
}
