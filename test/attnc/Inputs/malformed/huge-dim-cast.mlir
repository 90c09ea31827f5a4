// attn.cast of a tensor with 2^63 - 1 elements.
func.func @f(%x: tensor<9223372036854775807xf32>) -> tensor<9223372036854775807xf16> {
  // CHECK: {{^}}huge-dim-cast.mlir:[[@LINE+1]]:8: error: 'attn.cast' op dim 9223372036854775807 is out of range; static dims must be in [1, 2147483647]{{$}}
  %y = attn.cast %x : tensor<9223372036854775807xf32> to tensor<9223372036854775807xf16>
  return %y : tensor<9223372036854775807xf16>
}
// CHECK-NOT: error:
// CHECK: {{^}}exit=1{{$}}
