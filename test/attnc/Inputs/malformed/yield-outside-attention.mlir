// attn.yield directly in a function body.
func.func @f(%s: f32) {
  // CHECK: {{^}}yield-outside-attention.mlir:[[@LINE+1]]:3: error: 'attn.yield' op expects parent op 'attn.attention'{{$}}
  attn.yield %s : f32
}
// CHECK-NOT: error:
// CHECK: {{^}}exit=1{{$}}
