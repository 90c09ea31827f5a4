// A negative dim is not a dim at all.
// CHECK: {{^}}negative-dim.mlir:[[@LINE+1]]:25: error: expected non-function type{{$}}
func.func @f(%q: tensor<-1x4x64x32xf32>) {
  return
}
// CHECK-NOT: error:
// CHECK: {{^}}exit=1{{$}}
