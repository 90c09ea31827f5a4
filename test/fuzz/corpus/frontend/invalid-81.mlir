func.func @attention_mask_region_wide_integer(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %wide = arith.index_cast %qi : index to i128
      %ok = arith.constant true
      attn.yield %ok : i1
    }
  return
}
