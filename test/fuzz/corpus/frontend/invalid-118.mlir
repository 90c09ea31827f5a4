func.func @cast_vector_result(%x: tensor<4xf32>) {
  %y = "attn.cast"(%x) : (tensor<4xf32>) -> vector<4xf16>
  return
}
