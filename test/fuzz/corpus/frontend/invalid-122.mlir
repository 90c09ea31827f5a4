func.func @attention_grad_dout_type(%q: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>, %do: tensor<1x2x8x16xf16>) {
  %dq, %dk, %dv = attn.attention_grad %q, %q, %q, %o, %l, %do
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf16>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
  return
}
