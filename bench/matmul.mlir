// GEMMs of a d_model-2048 transformer block in bf16, for bench/matmul.py:
// the QKV projection (nn.Linear layout, [N, K] weights), the MLP's down
// projection ([K, N] weights) and their backward functions (dx, and dw as
// a row contraction), over rows = batch x sequence.
func.func @qkv(%x: tensor<?x2048xbf16>, %w: tensor<6144x2048xbf16>)
    -> tensor<?x6144xbf16> attributes {attn.backward} {
  %y = attn.matmul %x, %w {transpose_b}
      : tensor<?x2048xbf16>, tensor<6144x2048xbf16> -> tensor<?x6144xbf16>
  return %y : tensor<?x6144xbf16>
}

func.func @down(%h: tensor<?x5632xbf16>, %w: tensor<5632x2048xbf16>)
    -> tensor<?x2048xbf16> attributes {attn.backward} {
  %y = attn.matmul %h, %w
      : tensor<?x5632xbf16>, tensor<5632x2048xbf16> -> tensor<?x2048xbf16>
  return %y : tensor<?x2048xbf16>
}
