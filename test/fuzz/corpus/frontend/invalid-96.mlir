func.func @linear_attention_favor_zero_num_features(%q: tensor<1x4x64x32xf32>) {
  %out = attn.linear_attention favor %q, %q, %q {num_features = 0, seed = 7}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>
  return
}
