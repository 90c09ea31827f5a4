func.func @split_wrong_parts(%q: tensor<1x4x1x32xbf16>, %k: tensor<1x4x?x32xbf16>) {
  %po, %pl = attn.attention_split %q, %k, %k
      : tensor<1x4x1x32xbf16>, tensor<1x4x?x32xbf16>, tensor<1x4x?x32xbf16>
      -> tensor<8x1x4x1x32xbf16>, tensor<8x1x4x1xf32>
  return
}
