func.func @attention_tiles(%q: tensor<1x4x64x32xf32>, %k: tensor<1x4x64x32xf32>,
                           %v: tensor<1x4x64x32xf32>)
    -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>) {
  %out, %lse = attn.attention %q, %k, %v {causal, tiles = #attn.tiles<block_m = 256, block_n = 1>}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return %out, %lse : tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
}
