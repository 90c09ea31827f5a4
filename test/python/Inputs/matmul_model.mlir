// The host GEMM's three forms in f32, for matmul_strides.py: a linear layer
// with an [N, K] weight (dot products), one with a [K, N] weight (rank-1
// updates) and a weight gradient's row contraction.
func.func @linear(%x: tensor<?x24xf32>, %w: tensor<40x24xf32>)
    -> tensor<?x40xf32> {
  %y = attn.matmul %x, %w {transpose_b}
      : tensor<?x24xf32>, tensor<40x24xf32> -> tensor<?x40xf32>
  return %y : tensor<?x40xf32>
}

func.func @project(%x: tensor<?x24xf32>, %w: tensor<24x40xf32>)
    -> tensor<?x40xf32> {
  %y = attn.matmul %x, %w
      : tensor<?x24xf32>, tensor<24x40xf32> -> tensor<?x40xf32>
  return %y : tensor<?x40xf32>
}

func.func @contract(%a: tensor<?x24xf32>, %b: tensor<?x40xf32>)
    -> tensor<24x40xf32> {
  %c = attn.matmul %a, %b {transpose_a}
      : tensor<?x24xf32>, tensor<?x40xf32> -> tensor<24x40xf32>
  return %c : tensor<24x40xf32>
}
