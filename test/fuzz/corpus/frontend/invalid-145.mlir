func.func @grad_kv_missing_score_grad(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>) {
  %dk, %dv = attn.attention_grad_kv %q, %q, %q, %l, %l, %q
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      attn.yield %s : f32
    }
  return
}
