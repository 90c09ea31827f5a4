// Generic attn.attention with two operands instead of three (q, k, v).
func.func @f(%q: tensor<1x4x64x32xf32>) -> tensor<1x4x64x32xf32> {
  // CHECK: {{^}}generic-missing-operand.mlir:[[@LINE+1]]:16: error: 'attn.attention' op expected 3 or more operands, but found 2{{$}}
  %out, %lse = "attn.attention"(%q, %q) ({}, {})
      : (tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>)
      -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>)
  return %out : tensor<1x4x64x32xf32>
}
// CHECK-NOT: error:
// CHECK: {{^}}exit=1{{$}}
