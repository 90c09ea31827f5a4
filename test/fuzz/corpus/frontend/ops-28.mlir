func.func @cast_block_size(%x: tensor<8x128xf32>) -> (tensor<8x128xbf16>, tensor<8x128xf16>) {
  %0 = attn.cast %x {block_size = 256} : tensor<8x128xf32> to tensor<8x128xbf16>
  %1 = attn.cast %x {scale = 2.0 : f32, block_size = 1 : i64} : tensor<8x128xf32> to tensor<8x128xf16>
  return %0, %1 : tensor<8x128xbf16>, tensor<8x128xf16>
}
