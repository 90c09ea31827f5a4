// Six query heads cannot share four key/value heads: docs/guide.md, Errors.
func.func @f(%q: tensor<1x6x8x16xf32>, %kv: tensor<1x4x8x16xf32>) -> tensor<1x6x8x16xf32> {
  %o, %l = attn.attention %q, %kv, %kv : tensor<1x6x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x6x8x16xf32>, tensor<1x6x8xf32>
  return %o : tensor<1x6x8x16xf32>
}
