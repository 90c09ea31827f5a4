func.func @split_heads(%q: tensor<1x3x1x32xbf16>, %k: tensor<1x2x?x32xbf16>) {
  %po, %pl = attn.attention_split %q, %k, %k
      : tensor<1x3x1x32xbf16>, tensor<1x2x?x32xbf16>, tensor<1x2x?x32xbf16>
      -> tensor<8x1x3x1x32xf32>, tensor<8x1x3x1xf32>
  return
}
