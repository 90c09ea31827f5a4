func.func @attention_score_yield_bf16(%q: tensor<1x4x64x32xbf16>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xbf16>, tensor<1x4x64x32xbf16>, tensor<1x4x64x32xbf16>
      -> tensor<1x4x64x32xbf16>, tensor<1x4x64xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %t = arith.truncf %s : f32 to bf16
      attn.yield %t : bf16
    }
  return
}
