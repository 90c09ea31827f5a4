func.func @attention_dim_too_large(%q: tensor<1x4x64x32xf32>, %k: tensor<1x4x2147483648x32xf32>) {
  %out, %lse = attn.attention %q, %k, %k
      : tensor<1x4x64x32xf32>, tensor<1x4x2147483648x32xf32>, tensor<1x4x2147483648x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}
