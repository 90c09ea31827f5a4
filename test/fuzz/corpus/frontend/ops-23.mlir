func.func @linear_attention_relu(%q: tensor<1x8x100x64xbf16>, %k: tensor<1x2x300x64xbf16>,
                                 %v: tensor<1x2x300x32xbf16>) -> tensor<1x8x100x32xbf16> {
  %out = attn.linear_attention relu %q, %k, %v
      : tensor<1x8x100x64xbf16>, tensor<1x2x300x64xbf16>, tensor<1x2x300x32xbf16>
      -> tensor<1x8x100x32xbf16>
  return %out : tensor<1x8x100x32xbf16>
}
