func.func @attention_negative_scale(%q: tensor<1x4x64x32xf32>, %k: tensor<1x4x64x32xf32>,
                                    %v: tensor<1x4x64x32xf32>)
    -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>) {
  %out, %lse = attn.attention %q, %k, %v {scale = -0.5 : f32}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return %out, %lse : tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
}
