func.func @attention_grad_head_dim(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x32xf32>, %l: tensor<1x2x8xf32>) {
  %dq, %dk, %dv = attn.attention_grad %q, %k, %q, %q, %l, %q
      : tensor<1x2x8x16xf32>, tensor<1x2x8x32xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x32xf32>, tensor<1x2x8x16xf32>
  return
}
