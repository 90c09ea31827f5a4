func.func @mask_divides_by_zero(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %c0 = arith.constant 0 : index
      %r = arith.divui %ki, %c0 : index
      %ok = arith.cmpi eq, %r, %qi : index
      attn.yield %ok : i1
    }
  return
}
