func.func @cast_zero_scale(%x: tensor<8x128xf32>) {
  %y = attn.cast %x {scale = 0.0 : f32} : tensor<8x128xf32> to tensor<8x128xf16>
  return
}
