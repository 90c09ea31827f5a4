// attn.attention has two results (out, lse); only one is bound.
func.func @f(%q: tensor<1x4x64x32xf32>) -> tensor<1x4x64x32xf32> {
  // CHECK: {{^}}syntax-result-count.mlir:[[@LINE+1]]:3: error: operation defines 2 results but was provided 1 to bind{{$}}
  %out = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return %out : tensor<1x4x64x32xf32>
}
// CHECK-NOT: error:
// CHECK: {{^}}exit=1{{$}}
