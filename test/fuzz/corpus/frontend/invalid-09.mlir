func.func @attention_q_element_type_fp8(%q: tensor<1x4x64x32xf8E4M3FN>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf8E4M3FN>, tensor<1x4x64x32xf8E4M3FN>, tensor<1x4x64x32xf8E4M3FN>
      -> tensor<1x4x64x32xf8E4M3FN>, tensor<1x4x64xf32>
  return
}
