func.func @attention_tiles_wrong_attribute(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q {tiles = [64, 32]}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}
