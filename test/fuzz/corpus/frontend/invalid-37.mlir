func.func @linear_attention_out_has_kv_heads(%q: tensor<1x8x64x32xf32>, %k: tensor<1x2x64x32xf32>) {
  %out = attn.linear_attention elu1 %q, %k, %k
      : tensor<1x8x64x32xf32>, tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>
      -> tensor<1x2x64x32xf32>
  return
}
