func.func @attention_infinite_scale(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q {scale = 0x7F800000 : f32}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}
