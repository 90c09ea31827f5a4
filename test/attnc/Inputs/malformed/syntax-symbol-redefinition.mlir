// Two functions with the same name.
func.func @f(%q: tensor<1x4x64x32xf32>) {
  return
}
// CHECK: {{^}}syntax-symbol-redefinition.mlir:[[@LINE+3]]:1: error: redefinition of symbol named 'f'{{$}}
// CHECK-NOT: error:
// CHECK: {{^}}exit=1{{$}}
func.func @f(%q: tensor<1x4x64x32xf32>) {
  return
}
