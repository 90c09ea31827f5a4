func.func @cast_integer_input(%x: tensor<8x128xi32>) {
  %y = attn.cast %x : tensor<8x128xi32> to tensor<8x128xf16>
  return
}
