// An op of a dialect attnc does not know, in a custom form; the note lists
// the dialects attnc has.
func.func @f(%q: tensor<1x4x64x32xf32>) -> tensor<1x4x64x32xf32> {
  // CHECK: {{^}}unknown-dialect-custom-op.mlir:[[@LINE+2]]:10: error: Dialect `flash' not found for custom op 'flash.attention'
  // CHECK: {{^}}unknown-dialect-custom-op.mlir:[[@LINE+1]]:10: note: Available dialects: {{.*}}attn{{.*}}
  %out = flash.attention %q, %q, %q : tensor<1x4x64x32xf32>
  return %out : tensor<1x4x64x32xf32>
}
// CHECK-NOT: error:
// CHECK: {{^}}exit=1{{$}}
