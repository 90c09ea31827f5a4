func.func @attention_bottom_right_alone(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q {bottom_right}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}
