// q, k and v of rank 3 (no batch dim).
func.func @f(%q: tensor<4x64x32xf32>) -> tensor<4x64x32xf32> {
  // CHECK: {{^}}wrong-rank.mlir:[[@LINE+1]]:16: error: 'attn.attention' op expected q to have rank 4 ([batch, heads, seq, head_dim]), got rank 3{{$}}
  %out, %lse = attn.attention %q, %q, %q
      : tensor<4x64x32xf32>, tensor<4x64x32xf32>, tensor<4x64x32xf32>
      -> tensor<4x64x32xf32>, tensor<4x64xf32>
  return %out : tensor<4x64x32xf32>
}
// CHECK-NOT: error:
// CHECK: {{^}}exit=1{{$}}
