func.func @cast_index_input(%x: tensor<4xindex>) {
  %y = attn.cast %x : tensor<4xindex> to tensor<4xf32>
  return
}
