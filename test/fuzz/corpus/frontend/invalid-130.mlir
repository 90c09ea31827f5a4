func.func @attention_grad_score_grad_args(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>) {
  %dq, %dk, %dv = attn.attention_grad %q, %q, %q, %q, %l, %q
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      attn.yield %s : f32
    } score_grad {
    ^bb0(%s: f32):
      attn.yield %s : f32
    }
  return
}
