func.func @linear_attention_dynamic_k_head_dim(%q: tensor<1x4x64x32xf32>, %k: tensor<1x4x64x?xf32>) {
  %out = attn.linear_attention elu1 %q, %k, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x?xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>
  return
}
