// A sequence length of 0.
func.func @f(%q: tensor<1x4x0x32xf32>) -> tensor<1x4x0x32xf32> {
  // CHECK: {{^}}zero-dim.mlir:[[@LINE+1]]:16: error: 'attn.attention' op q dim 2 is 0; static dims must be positive{{$}}
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x0x32xf32>, tensor<1x4x0x32xf32>, tensor<1x4x0x32xf32>
      -> tensor<1x4x0x32xf32>, tensor<1x4x0xf32>
  return %out : tensor<1x4x0x32xf32>
}
// CHECK-NOT: error:
// CHECK: {{^}}exit=1{{$}}
