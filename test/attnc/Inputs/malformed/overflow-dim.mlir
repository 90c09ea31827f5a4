// A dim of 2^64 does not fit int64.
// CHECK: {{^}}overflow-dim.mlir:[[@LINE+1]]:25: error: invalid dimension{{$}}
func.func @f(%q: tensor<18446744073709551616x4x64x32xf32>) -> tensor<18446744073709551616x4x64x32xf32> {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<18446744073709551616x4x64x32xf32>, tensor<18446744073709551616x4x64x32xf32>,
        tensor<18446744073709551616x4x64x32xf32>
      -> tensor<18446744073709551616x4x64x32xf32>, tensor<18446744073709551616x4x64xf32>
  return %out : tensor<18446744073709551616x4x64x32xf32>
}
// CHECK-NOT: error:
// CHECK: {{^}}exit=1{{$}}
