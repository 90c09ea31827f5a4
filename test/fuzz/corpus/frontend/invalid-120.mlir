func.func @cast_block_size_negative(%x: tensor<8x128xf32>) {
  %y = attn.cast %x {block_size = -256 : i64} : tensor<8x128xf32> to tensor<8x128xbf16>
  return
}
