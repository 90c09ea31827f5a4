func.func @attention_zero_dim(%q: tensor<0x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<0x4x64x32xf32>, tensor<0x4x64x32xf32>, tensor<0x4x64x32xf32>
      -> tensor<0x4x64x32xf32>, tensor<0x4x64xf32>
  return
}
