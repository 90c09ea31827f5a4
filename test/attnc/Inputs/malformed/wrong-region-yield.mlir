// A score region that yields the i1 of a mask.
func.func @f(%q: tensor<1x4x64x32xf32>) -> tensor<1x4x64x32xf32> {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %ok = arith.cmpi sle, %ki, %qi : index
      // CHECK: {{^}}wrong-region-yield.mlir:[[@LINE+1]]:7: error: 'attn.yield' op expected the score region to yield one 'f32'{{$}}
      attn.yield %ok : i1
    }
  return %out : tensor<1x4x64x32xf32>
}
// CHECK-NOT: error:
// CHECK: {{^}}exit=1{{$}}
