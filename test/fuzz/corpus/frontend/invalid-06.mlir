func.func @linear_attention_memref_v(%q: tensor<1x4x64x32xf32>, %v: memref<1x4x64x32xf32>) {
  %out = "attn.linear_attention"(%q, %q, %v) <{feature_map = 1 : i32}>
      : (tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, memref<1x4x64x32xf32>)
      -> tensor<1x4x64x32xf32>
  return
}
