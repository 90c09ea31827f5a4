// bf16 q with f16 k.
func.func @f(%q: tensor<1x4x64x32xbf16>, %k: tensor<1x4x64x32xf16>) -> tensor<1x4x64x32xbf16> {
  // CHECK: {{^}}wrong-mixed-dtype.mlir:[[@LINE+1]]:16: error: 'attn.attention' op expected k element type 'f16' to match q element type 'bf16'{{$}}
  %out, %lse = attn.attention %q, %k, %k
      : tensor<1x4x64x32xbf16>, tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>
      -> tensor<1x4x64x32xbf16>, tensor<1x4x64xf32>
  return %out : tensor<1x4x64x32xbf16>
}
// CHECK-NOT: error:
// CHECK: {{^}}exit=1{{$}}
