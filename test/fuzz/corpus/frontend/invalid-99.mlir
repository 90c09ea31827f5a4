func.func @linear_attention_elu1_with_num_features(%q: tensor<1x4x64x32xf32>) {
  %out = attn.linear_attention elu1 %q, %q, %q {num_features = 64}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>
  return
}
