func.func @attention_unranked_q(%q: tensor<*xf32>, %k: tensor<1x4x64x32xf32>) {
  %out, %lse = "attn.attention"(%q, %k, %k) ({}, {})
      : (tensor<*xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>)
      -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>)
  return
}
