func.func @attention_out_element_type_mismatch(%q: tensor<1x4x64x32xf16>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}
