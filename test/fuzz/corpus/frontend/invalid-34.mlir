func.func @linear_attention_more_kv_heads_than_q_heads(%q: tensor<1x2x64x32xf32>, %k: tensor<1x4x64x32xf32>) {
  %out = attn.linear_attention relu %q, %k, %k
      : tensor<1x2x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x2x64x32xf32>
  return
}
