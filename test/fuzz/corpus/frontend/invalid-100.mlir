func.func @linear_attention_relu_with_seed(%q: tensor<1x4x64x32xf32>) {
  %out = attn.linear_attention relu %q, %q, %q {seed = 3}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>
  return
}
