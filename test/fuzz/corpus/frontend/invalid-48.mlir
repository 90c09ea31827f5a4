func.func @attention_huge_window_right(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q {window_left = 2, window_right = 9223372036854775807}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}
