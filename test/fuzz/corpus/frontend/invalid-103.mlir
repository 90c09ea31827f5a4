func.func @linear_attention_missing_feature_map(%q: tensor<1x4x64x32xf32>) {
  %out = "attn.linear_attention"(%q, %q, %q)
      : (tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>)
      -> tensor<1x4x64x32xf32>
  return
}
