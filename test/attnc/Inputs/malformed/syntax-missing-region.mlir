// The `mask` keyword of attn.attention is not followed by a region.
func.func @f(%q: tensor<1x4x64x32xf32>) -> tensor<1x4x64x32xf32> {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      // CHECK: {{^}}syntax-missing-region.mlir:[[@LINE+1]]:56: error: expected '{' to begin a region{{$}}
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32> mask
  return %out : tensor<1x4x64x32xf32>
}
// CHECK-NOT: error:
// CHECK: {{^}}exit=1{{$}}
