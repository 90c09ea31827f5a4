func.func @linear_attention_unknown_feature_map(%q: tensor<1x4x64x32xf32>) {
  %out = attn.linear_attention softmax %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>
  return
}
