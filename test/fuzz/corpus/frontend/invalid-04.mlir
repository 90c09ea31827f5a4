func.func @linear_attention_q_rank_not_4(%q: tensor<4x64x32xf32>, %k: tensor<1x4x64x32xf32>) {
  %out = attn.linear_attention relu %q, %k, %k
      : tensor<4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>
  return
}
