func.func @attention_generic_score_in_mask_slot(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = "attn.attention"(%q, %q, %q) ({
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      "attn.yield"(%s) : (f32) -> ()
    }, {})
      : (tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>)
      -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>)
  return
}
