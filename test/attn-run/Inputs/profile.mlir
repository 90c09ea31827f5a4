// Three steps of three kinds and a gradient function, for profile.test.
func.func @norm_project(%x: tensor<?x64xf32>, %g: tensor<64xf32>,
                        %w: tensor<32x64xf32>) -> tensor<?x32xf32>
    attributes {attn.backward} {
  %n, %r = attn.rms_norm %x, %g {epsilon = 1.0e-05 : f32}
      : tensor<?x64xf32>, tensor<64xf32> -> tensor<?x64xf32>, tensor<?xf32>
  %p = attn.matmul %n, %w {transpose_b}
      : tensor<?x64xf32>, tensor<32x64xf32> -> tensor<?x32xf32>
  %y = math.tanh %p : tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}
