func.func @attention_scale_not_f32(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q {scale = 0.5 : f64}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}
