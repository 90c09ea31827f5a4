func.func @cast_to_f64(%x: tensor<8x128xf32>) {
  %y = attn.cast %x : tensor<8x128xf32> to tensor<8x128xf64>
  return
}
