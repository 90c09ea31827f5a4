func.func @attention_q_element_type_not_float(%q: tensor<1x4x64x32xi8>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xi8>, tensor<1x4x64x32xi8>, tensor<1x4x64x32xi8>
      -> tensor<1x4x64x32xi8>, tensor<1x4x64xf32>
  return
}
