func.func @cast_shape_mismatch(%x: tensor<8x128xf32>) {
  %y = attn.cast %x : tensor<8x128xf32> to tensor<8x64xf16>
  return
}
