func.func @split_dynamic_ranges(%q: tensor<1x4x1x32xbf16>, %k: tensor<1x4x?x32xbf16>) {
  %po, %pl = attn.attention_split %q, %k, %k
      : tensor<1x4x1x32xbf16>, tensor<1x4x?x32xbf16>, tensor<1x4x?x32xbf16>
      -> tensor<?x1x4x1x32xf32>, tensor<?x1x4x1xf32>
  return
}
