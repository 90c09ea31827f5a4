func.func @grad_delta_dout_type(%o: tensor<1x2x8x16xbf16>, %do: tensor<1x2x8x16xf32>) {
  %d, %a = attn.attention_grad_delta %o, %do
      : tensor<1x2x8x16xbf16>, tensor<1x2x8x16xf32> -> tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
  return
}
