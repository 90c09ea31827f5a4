func.func @attention_score_alibi(%q: tensor<?x16x?x128xbf16>, %k: tensor<?x4x?x128xbf16>,
                                 %v: tensor<?x4x?x128xbf16>)
    -> (tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>) {
  %out, %lse = attn.attention %q, %k, %v {causal}
      : tensor<?x16x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>
      -> tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %d = arith.subi %qi, %ki : index
      %di = arith.index_cast %d : index to i64
      %df = arith.sitofp %di : i64 to f32
      %slope = arith.constant 0.0625 : f32
      %bias = arith.mulf %df, %slope : f32
      %r = arith.subf %s, %bias : f32
      attn.yield %r : f32
    }
  return %out, %lse : tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>
}
