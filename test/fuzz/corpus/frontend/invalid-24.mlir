func.func @attention_q_head_dim_over_1024(%q: tensor<1x4x64x1025xf32>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x1025xf32>, tensor<1x4x64x1025xf32>, tensor<1x4x64x1025xf32>
      -> tensor<1x4x64x1025xf32>, tensor<1x4x64xf32>
  return
}
