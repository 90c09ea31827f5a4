// The custom form of attn.attention takes ranked tensors only.
func.func @f(%q: tensor<*xf32>) -> tensor<*xf32> {
  %out, %lse = attn.attention %q, %q, %q
      // CHECK: {{^}}syntax-unranked-tensor.mlir:[[@LINE+1]]:9: error: custom op 'attn.attention' invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'{{$}}
      : tensor<*xf32>, tensor<*xf32>, tensor<*xf32> -> tensor<*xf32>, tensor<*xf32>
  return %out : tensor<*xf32>
}
// CHECK-NOT: error:
// CHECK: {{^}}exit=1{{$}}
