func.func @cast_to_f8E4M3FNUZ(%x: tensor<8x128xf32>) {
  %y = attn.cast %x : tensor<8x128xf32> to tensor<8x128xf8E4M3FNUZ>
  return
}
