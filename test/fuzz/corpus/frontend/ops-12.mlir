func.func @attention_mixed_static_dynamic(%q: tensor<2x8x?x64xf32>, %k: tensor<?x8x?x64xf32>,
                                          %v: tensor<2x8x100x16xf32>)
    -> (tensor<2x8x?x16xf32>, tensor<2x8x?xf32>) {
  %out, %lse = attn.attention %q, %k, %v
      : tensor<2x8x?x64xf32>, tensor<?x8x?x64xf32>, tensor<2x8x100x16xf32>
      -> tensor<2x8x?x16xf32>, tensor<2x8x?xf32>
  return %out, %lse : tensor<2x8x?x16xf32>, tensor<2x8x?xf32>
}
