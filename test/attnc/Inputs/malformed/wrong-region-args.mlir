// A mask region with two i32 arguments instead of four indices.
func.func @f(%q: tensor<1x4x64x32xf32>) -> tensor<1x4x64x32xf32> {
  // CHECK: {{^}}wrong-region-args.mlir:[[@LINE+1]]:16: error: 'attn.attention' op expected the mask region to take (b, h, q_idx, k_idx) of types ('index', 'index', 'index', 'index'), got ('i32', 'i32'){{$}}
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%qi: i32, %ki: i32):
      %ok = arith.cmpi sle, %ki, %qi : i32
      attn.yield %ok : i1
    }
  return %out : tensor<1x4x64x32xf32>
}
// CHECK-NOT: error:
// CHECK: {{^}}exit=1{{$}}
