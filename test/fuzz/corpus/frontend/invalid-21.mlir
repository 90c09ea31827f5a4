func.func @attention_dynamic_q_head_dim(%q: tensor<1x4x64x?xf32>, %k: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %k, %k
      : tensor<1x4x64x?xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}
