func.func @attention_heads_not_multiple(%q: tensor<1x6x64x32xf32>, %k: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %k, %k
      : tensor<1x6x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x6x64x32xf32>, tensor<1x6x64xf32>
  return
}
