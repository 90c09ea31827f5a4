func.func @linear_attention_favor_missing_seed(%q: tensor<1x4x64x32xf32>) {
  %out = attn.linear_attention favor %q, %q, %q {num_features = 128}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>
  return
}
