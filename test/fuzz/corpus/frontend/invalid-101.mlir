func.func @linear_attention_causal_seq_mismatch(%q: tensor<1x4x16x32xf32>, %k: tensor<1x4x32x32xf32>) {
  %out = attn.linear_attention elu1 %q, %k, %k {causal}
      : tensor<1x4x16x32xf32>, tensor<1x4x32x32xf32>, tensor<1x4x32x32xf32>
      -> tensor<1x4x16x32xf32>
  return
}
