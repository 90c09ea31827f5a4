func.func @yield_not_last_in_region(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      attn.yield %s : f32
      attn.yield %s : f32
    }
  return
}
