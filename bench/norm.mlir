// RMSNorm of a d_model-2048 activation in bf16, for bench/norm.py: rows =
// batch x sequence, weight bf16, forward and backward (dx, dweight).
func.func @rms_norm(%x: tensor<?x2048xbf16>, %w: tensor<2048xbf16>)
    -> tensor<?x2048xbf16> attributes {attn.backward} {
  %y, %rstd = attn.rms_norm %x, %w {epsilon = 1.0e-06 : f32}
      : tensor<?x2048xbf16>, tensor<2048xbf16> -> tensor<?x2048xbf16>, tensor<?xf32>
  return %y : tensor<?x2048xbf16>
}
