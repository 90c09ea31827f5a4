func.func @cast_unranked_input(%x: tensor<*xf32>) {
  %y = "attn.cast"(%x) : (tensor<*xf32>) -> tensor<*xf16>
  return
}
