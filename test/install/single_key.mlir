// With one key, softmax gives it weight 1: every output row is that key's
// value row. The install consumers check exactly that.
func.func @single_key(%q: tensor<1x2x3x8xf32>, %k: tensor<1x2x1x8xf32>,
                      %v: tensor<1x2x1x8xf32>) -> tensor<1x2x3x8xf32> {
  %o, %lse = attn.attention %q, %k, %v
      : tensor<1x2x3x8xf32>, tensor<1x2x1x8xf32>, tensor<1x2x1x8xf32>
      -> tensor<1x2x3x8xf32>, tensor<1x2x3xf32>
  return %o : tensor<1x2x3x8xf32>
}
