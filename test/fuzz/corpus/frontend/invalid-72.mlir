func.func @attention_mask_yield_two_values(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %lt = arith.cmpi ult, %ki, %qi : index
      %eq = arith.cmpi eq, %ki, %qi : index
      attn.yield %lt, %eq : i1, i1
    }
  return
}
