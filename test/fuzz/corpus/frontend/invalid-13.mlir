func.func @linear_attention_out_element_type_mismatch(%q: tensor<1x4x64x32xf32>) {
  %out = attn.linear_attention elu1 %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xbf16>
  return
}
