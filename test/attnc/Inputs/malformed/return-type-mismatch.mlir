// The function returns the f32 out of attn.attention as f16.
func.func @f(%q: tensor<1x4x64x32xf32>) -> tensor<1x4x64x32xf16> {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  // CHECK: {{^}}return-type-mismatch.mlir:[[@LINE+1]]:3: error: type of return operand 0 ('tensor<1x4x64x32xf32>') doesn't match function result type ('tensor<1x4x64x32xf16>') in function @f{{$}}
  return %out : tensor<1x4x64x32xf32>
}
// CHECK-NOT: error:
// CHECK: {{^}}exit=1{{$}}
