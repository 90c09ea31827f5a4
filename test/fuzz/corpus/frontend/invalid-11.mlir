func.func @attention_v_element_type_mismatch(%q: tensor<1x4x64x32xbf16>, %v: tensor<1x4x64x32xf16>) {
  %out, %lse = attn.attention %q, %q, %v
      : tensor<1x4x64x32xbf16>, tensor<1x4x64x32xbf16>, tensor<1x4x64x32xf16>
      -> tensor<1x4x64x32xbf16>, tensor<1x4x64xf32>
  return
}
