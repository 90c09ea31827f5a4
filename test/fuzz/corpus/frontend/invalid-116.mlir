func.func @cast_nan_scale(%x: tensor<8x128xf32>) {
  %y = attn.cast %x {scale = 0x7FC00000 : f32} : tensor<8x128xf32> to tensor<8x128xf8E4M3FN>
  return
}
