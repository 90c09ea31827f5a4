func.func @cast_rank_mismatch(%x: tensor<8x128xf32>) {
  %y = attn.cast %x : tensor<8x128xf32> to tensor<1024xf16>
  return
}
