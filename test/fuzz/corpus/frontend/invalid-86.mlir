func.func @attention_score_region_uses_outer_value(%q: tensor<1x4x64x32xf32>, %bias: f32) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %r = arith.addf %s, %bias : f32
      attn.yield %r : f32
    }
  return
}
