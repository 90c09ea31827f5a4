// attn has no op named frobnicate.
func.func @f(%q: tensor<1x4x64x32xf32>) -> tensor<1x4x64x32xf32> {
  // CHECK: {{^}}unknown-attn-op.mlir:[[@LINE+1]]:10: error: custom op 'attn.frobnicate' is unknown{{$}}
  %out = attn.frobnicate %q : tensor<1x4x64x32xf32>
  return %out : tensor<1x4x64x32xf32>
}
// CHECK-NOT: error:
// CHECK: {{^}}exit=1{{$}}
