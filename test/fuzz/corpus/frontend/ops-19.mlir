func.func @attention_score_softcap(%q: tensor<1x8x128x64xf32>, %k: tensor<1x8x128x64xf32>,
                                   %v: tensor<1x8x128x64xf32>)
    -> (tensor<1x8x128x64xf32>, tensor<1x8x128xf32>) {
  %out, %lse = attn.attention %q, %k, %v
      : tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>
      -> tensor<1x8x128x64xf32>, tensor<1x8x128xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %cap = arith.constant 50.0 : f32
      %x = arith.divf %s, %cap : f32
      %t = math.tanh %x : f32
      %r = arith.mulf %t, %cap : f32
      attn.yield %r : f32
    }
  return %out, %lse : tensor<1x8x128x64xf32>, tensor<1x8x128xf32>
}
