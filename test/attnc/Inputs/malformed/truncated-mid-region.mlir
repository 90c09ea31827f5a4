// Cut inside the mask region of attn.attention, in the middle of an
// arith.cmpi.
// CHECK: {{^}}truncated-mid-region.mlir:[[@LINE+9]]:33: error: expected SSA operand{{$}}
// CHECK-NOT: error:
// CHECK: {{^}}exit=1{{$}}
func.func @f(%q: tensor<1x4x64x32xf32>) -> tensor<1x4x64x32xf32> {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %ok = arith.cmpi sle, %ki, 