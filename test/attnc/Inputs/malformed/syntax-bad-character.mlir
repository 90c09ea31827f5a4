// A character that starts no MLIR token.
func.func @f(%q: tensor<1x4x64x32xf32>) -> tensor<1x4x64x32xf32> {
  // CHECK: {{^}}syntax-bad-character.mlir:[[@LINE+1]]:37: error: unexpected character{{$}}
  return %q : tensor<1x4x64x32xf32> $
}
// CHECK-NOT: error:
// CHECK: {{^}}exit=1{{$}}
