func.func @attention_grad_dv_type(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>) {
  %dq, %dk, %dv = attn.attention_grad %q, %q, %q, %q, %l, %q
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xbf16>
  return
}
