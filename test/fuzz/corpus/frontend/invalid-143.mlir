func.func @grad_kv_accumulator_type(%q: tensor<1x2x8x16xbf16>, %l: tensor<1x2x8xf32>) {
  %dk, %dv, %acc = attn.attention_grad_kv %q, %q, %q, %l, %l, %q, %q
      : tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>
      -> tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>
  return
}
