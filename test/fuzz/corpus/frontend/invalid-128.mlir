func.func @attention_grad_window(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>) {
  %dq, %dk, %dv = attn.attention_grad %q, %q, %q, %q, %l, %q {window_left = -1}
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
  return
}
