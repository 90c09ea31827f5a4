func.func @attention_generic_missing_operand(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = "attn.attention"(%q, %q) ({}, {})
      : (tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>)
      -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>)
  return
}
