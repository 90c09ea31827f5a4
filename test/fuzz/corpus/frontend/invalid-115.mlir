func.func @cast_infinite_scale(%x: tensor<8x128xf32>) {
  %y = attn.cast %x {scale = 0xFF800000 : f32} : tensor<8x128xf32> to tensor<8x128xf8E5M2>
  return
}
