func.func @cast_dim_too_large(%x: tensor<8x2147483648xf32>) {
  %y = attn.cast %x : tensor<8x2147483648xf32> to tensor<8x2147483648xf16>
  return
}
