// attn.yield directly in a function body.
func.func @f(%s: f32) {
  // CHECK: {{^}}yield-outside-attention.mlir:[[@LINE+1]]:3: error: 'attn.yield' op expects parent op to be one of 'attn.attention, attn.attention_split, attn.attention_grad, attn.attention_grad_kv, attn.attention_grad_q, attn.elementwise'{{$}}
  attn.yield %s : f32
}
// CHECK-NOT: error:
// CHECK: {{^}}exit=1{{$}}
