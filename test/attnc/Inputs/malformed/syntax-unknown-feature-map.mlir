// softmax is not a feature map of attn.linear_attention.
func.func @f(%q: tensor<1x4x64x32xf32>) -> tensor<1x4x64x32xf32> {
  // CHECK: {{^}}syntax-unknown-feature-map.mlir:[[@LINE+1]]:32: error: custom op 'attn.linear_attention' expected string or keyword containing one of the following enum values for attribute 'feature_map' [elu1, relu, favor]{{$}}
  %out = attn.linear_attention softmax %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>
  return %out : tensor<1x4x64x32xf32>
}
// CHECK-NOT: error:
// CHECK: {{^}}exit=1{{$}}
