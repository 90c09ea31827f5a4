func.func @attention_v_rank_not_4(%q: tensor<1x4x64x32xf32>, %v: tensor<f32>) {
  %out, %lse = attn.attention %q, %q, %v
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<f32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}
