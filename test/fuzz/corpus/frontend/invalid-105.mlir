func.func @cast_dynamic_to_static(%x: tensor<?x128xf32>) {
  %y = attn.cast %x : tensor<?x128xf32> to tensor<8x128xbf16>
  return
}
