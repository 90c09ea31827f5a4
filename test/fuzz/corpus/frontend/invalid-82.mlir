func.func @attention_score_region_fp8(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %small = arith.truncf %s : f32 to f8E4M3FN
      %back = arith.extf %small : f8E4M3FN to f32
      attn.yield %back : f32
    }
  return
}
