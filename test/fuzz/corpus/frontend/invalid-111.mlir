func.func @cast_to_integer(%x: tensor<8x128xf32>) {
  %y = attn.cast %x : tensor<8x128xf32> to tensor<8x128xi8>
  return
}
