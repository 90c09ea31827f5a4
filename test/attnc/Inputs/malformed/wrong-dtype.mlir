// f64 attention inputs.
func.func @f(%q: tensor<1x4x64x32xf64>) -> tensor<1x4x64x32xf64> {
  // CHECK: {{^}}wrong-dtype.mlir:[[@LINE+1]]:16: error: 'attn.attention' op expected q element type to be f32, f16 or bf16, got 'f64'{{$}}
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf64>, tensor<1x4x64x32xf64>, tensor<1x4x64x32xf64>
      -> tensor<1x4x64x32xf64>, tensor<1x4x64xf32>
  return %out : tensor<1x4x64x32xf64>
}
// CHECK-NOT: error:
// CHECK: {{^}}exit=1{{$}}
