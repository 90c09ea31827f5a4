func.func @attention_mask_and_score(%q: tensor<?x8x?x64xf16>, %k: tensor<?x2x?x64xf16>,
                                    %v: tensor<?x2x?x32xf16>)
    -> (tensor<?x8x?x32xf16>, tensor<?x8x?xf32>) {
  %out, %lse = attn.attention %q, %k, %v
      {causal, window_left = 512, window_right = 0, scale = 0.125 : f32}
      : tensor<?x8x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x32xf16>
      -> tensor<?x8x?x32xf16>, tensor<?x8x?xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %c0 = arith.constant 0 : index
      %ne = arith.cmpi ne, %h, %c0 : index
      attn.yield %ne : i1
    }
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %t = math.tanh %s : f32
      attn.yield %t : f32
    }
  return %out, %lse : tensor<?x8x?x32xf16>, tensor<?x8x?xf32>
}
