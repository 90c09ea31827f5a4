func.func @attention_mask_yield_nothing(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      attn.yield
    }
  return
}
