func.func @attention_plain(%q: tensor<2x8x128x64xf32>, %k: tensor<2x8x256x64xf32>,
                           %v: tensor<2x8x256x32xf32>)
    -> (tensor<2x8x128x32xf32>, tensor<2x8x128xf32>) {
  %out, %lse = attn.attention %q, %k, %v
      : tensor<2x8x128x64xf32>, tensor<2x8x256x64xf32>, tensor<2x8x256x32xf32>
      -> tensor<2x8x128x32xf32>, tensor<2x8x128xf32>
  return %out, %lse : tensor<2x8x128x32xf32>, tensor<2x8x128xf32>
}
