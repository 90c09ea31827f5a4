// A reference of a few seconds (8 heads of 3000 x 3000 keys in fp64), for
// progress.test.
func.func @big(%q: tensor<1x8x?x64xf32>, %k: tensor<1x8x?x64xf32>, %v: tensor<1x8x?x64xf32>) -> tensor<1x8x?x64xf32> {
  %o, %l = attn.attention %q, %k, %v : tensor<1x8x?x64xf32>, tensor<1x8x?x64xf32>, tensor<1x8x?x64xf32> -> tensor<1x8x?x64xf32>, tensor<1x8x?xf32>
  return %o : tensor<1x8x?x64xf32>
}
