func.func @attention_q_rank_not_4(%q: tensor<4x64x32xf32>, %k: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %k, %k
      : tensor<4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}
