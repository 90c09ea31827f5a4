func.func private @allowed(index, index) -> i1

func.func @attention_mask_region_with_call(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %ok = func.call @allowed(%qi, %ki) : (index, index) -> i1
      attn.yield %ok : i1
    }
  return
}
