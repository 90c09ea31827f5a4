func.func @attention_generic_missing_lse(%q: tensor<1x4x64x32xf32>) {
  %out = "attn.attention"(%q, %q, %q) ({}, {})
      : (tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>)
      -> tensor<1x4x64x32xf32>
  return
}
