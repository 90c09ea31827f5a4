// A score region that calls a function: not an op of the region op table.
func.func private @bias(f32) -> f32

func.func @f(%q: tensor<1x4x64x32xf32>) -> tensor<1x4x64x32xf32> {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      // CHECK: {{^}}region-impure-op.mlir:[[@LINE+1]]:12: error: 'func.call' op is not allowed in the score region of attn.attention: regions hold only the scalar arith and math ops of the region op table (lib/semantics/RegionOps.def){{$}}
      %r = func.call @bias(%s) : (f32) -> f32
      attn.yield %r : f32
    }
  return %out : tensor<1x4x64x32xf32>
}
// CHECK-NOT: error:
// CHECK: {{^}}exit=1{{$}}
