// Cut in the middle of the result types of attn.attention, without a final
// newline.
// CHECK: {{^}}truncated-mid-op.mlir:[[@LINE+6]]:20: error: expected non-function type{{$}}
// CHECK-NOT: error:
// CHECK: {{^}}exit=1{{$}}
func.func @f(%q: tensor<1x4x64x32xf32>) -> tensor<1x4x64x32xf32> {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x