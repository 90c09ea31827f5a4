// The function body is never closed; the parser hits the end of the file
// while looking for the next operation.
func.func @f(%q: tensor<1x4x64x32xf32>) -> tensor<1x4x64x32xf32> {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  // CHECK: {{^}}syntax-unclosed-brace.mlir:[[@LINE+3]]:38: error: expected operation name in quotes{{$}}
  // CHECK-NOT: error:
  // CHECK: {{^}}exit=1{{$}}
  return %out : tensor<1x4x64x32xf32>
