func.func @linear_attention_q_element_type_f64(%q: tensor<1x4x64x32xf64>) {
  %out = attn.linear_attention elu1 %q, %q, %q
      : tensor<1x4x64x32xf64>, tensor<1x4x64x32xf64>, tensor<1x4x64x32xf64>
      -> tensor<1x4x64x32xf64>
  return
}
