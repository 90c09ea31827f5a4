// Generic attn.attention without its (mask, score) regions; both must be
// present, possibly empty.
func.func @f(%q: tensor<1x4x64x32xf32>) -> tensor<1x4x64x32xf32> {
  // CHECK: {{^}}generic-missing-region.mlir:[[@LINE+1]]:16: error: 'attn.attention' op expected 2 regions{{$}}
  %out, %lse = "attn.attention"(%q, %q, %q) ({})
      : (tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>)
      -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>)
  return %out : tensor<1x4x64x32xf32>
}
// CHECK-NOT: error:
// CHECK: {{^}}exit=1{{$}}
