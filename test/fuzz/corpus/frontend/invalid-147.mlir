func.func @grad_q_scale(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>) {
  %dq = attn.attention_grad_q %q, %q, %q, %l, %l, %q {scale = 0.0 : f32}
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>
  return
}
