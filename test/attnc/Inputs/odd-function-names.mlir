// Functions whose names no symbol may hold (odd-function-names.test).
func.func @"a b/c\"d"(%q: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %o, %l = attn.attention %q, %q, %q : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>, tensor<1x2x8xf32>
  return %o : tensor<1x2x8x16xf32>
}

func.func @"a\nb"(%q: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %o, %l = attn.attention %q, %q, %q {causal} : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>, tensor<1x2x8xf32>
  return %o : tensor<1x2x8x16xf32>
}
