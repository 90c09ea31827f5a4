func.func private @bias(f32) -> f32

func.func @attention_score_region_with_call(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %r = func.call @bias(%s) : (f32) -> f32
      attn.yield %r : f32
    }
  return
}
