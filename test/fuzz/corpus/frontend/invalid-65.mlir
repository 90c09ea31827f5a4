func.func @attention_mask_region_wrong_arg_types(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: i64, %ki: i64):
      %allowed = arith.cmpi sle, %ki, %qi : i64
      attn.yield %allowed : i1
    }
  return
}
