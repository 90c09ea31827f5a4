func.func @cast_zero_dim(%x: tensor<0x128xf32>) {
  %y = attn.cast %x : tensor<0x128xf32> to tensor<0x128xf16>
  return
}
