func.func @attention_head_dim_mismatch_q_k(%q: tensor<1x4x64x64xf32>, %k: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %k, %k
      : tensor<1x4x64x64xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}
