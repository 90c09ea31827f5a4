// Generic attn.linear_attention without its required feature_map.
func.func @f(%q: tensor<1x4x64x32xf32>) -> tensor<1x4x64x32xf32> {
  // CHECK: {{^}}linear-missing-feature-map.mlir:[[@LINE+1]]:10: error: 'attn.linear_attention' op requires attribute 'feature_map'{{$}}
  %out = "attn.linear_attention"(%q, %q, %q) <{causal}>
      : (tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>)
      -> tensor<1x4x64x32xf32>
  return %out : tensor<1x4x64x32xf32>
}
// CHECK-NOT: error:
// CHECK: {{^}}exit=1{{$}}
