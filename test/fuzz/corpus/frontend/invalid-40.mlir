func.func @attention_lse_not_f32(%q: tensor<1x4x64x32xbf16>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xbf16>, tensor<1x4x64x32xbf16>, tensor<1x4x64x32xbf16>
      -> tensor<1x4x64x32xbf16>, tensor<1x4x64xbf16>
  return
}
