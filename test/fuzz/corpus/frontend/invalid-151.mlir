func.func @split_bottom_right_alone(%q: tensor<1x4x1x32xbf16>, %k: tensor<1x4x?x32xbf16>) {
  %po, %pl = attn.attention_split %q, %k, %k {bottom_right}
      : tensor<1x4x1x32xbf16>, tensor<1x4x?x32xbf16>, tensor<1x4x?x32xbf16>
      -> tensor<8x1x4x1x32xf32>, tensor<8x1x4x1xf32>
  return
}
