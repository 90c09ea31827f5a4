// The largest window the verifier allows (2^62) on the right, 2 on the left
// (largest-window.test).
func.func @largest_window(%q: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %o, %l = attn.attention %q, %q, %q {window_left = 2 : i64, window_right = 4611686018427387904 : i64}
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>, tensor<1x2x8xf32>
  return %o : tensor<1x2x8x16xf32>
}
