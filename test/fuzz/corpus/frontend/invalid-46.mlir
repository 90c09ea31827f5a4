func.func @attention_negative_window_left(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q {window_left = -1}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}
