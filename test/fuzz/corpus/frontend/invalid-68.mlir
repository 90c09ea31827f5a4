func.func @attention_score_region_f16_score(%q: tensor<1x4x64x32xf16>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>
      -> tensor<1x4x64x32xf16>, tensor<1x4x64xf32>
    score {
    ^bb0(%s: f16, %b: index, %h: index, %qi: index, %ki: index):
      attn.yield %s : f16
    }
  return
}
