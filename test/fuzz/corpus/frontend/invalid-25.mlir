func.func @attention_k_head_dim_over_1024(%q: tensor<1x4x64x32xf32>, %k: tensor<1x4x64x2048xf32>) {
  %out, %lse = attn.attention %q, %k, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x2048xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}
