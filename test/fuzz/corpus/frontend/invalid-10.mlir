func.func @attention_k_element_type_mismatch(%q: tensor<1x4x64x32xf32>, %k: tensor<1x4x64x32xf16>) {
  %out, %lse = attn.attention %q, %k, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf16>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}
