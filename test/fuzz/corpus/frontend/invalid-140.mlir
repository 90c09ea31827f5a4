func.func @grad_kv_dk_type(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>) {
  %dk, %dv = attn.attention_grad_kv %q, %q, %q, %l, %l, %q
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf16>, tensor<1x2x8x16xf32>
  return
}
