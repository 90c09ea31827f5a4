func.func @attention_zero_dim_out(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x0x32xf32>, tensor<1x4x64xf32>
  return
}
