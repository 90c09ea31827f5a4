func.func @cast_block_size_float(%x: tensor<8x128xf32>) {
  %y = attn.cast %x {block_size = 256.0 : f32} : tensor<8x128xf32> to tensor<8x128xbf16>
  return
}
