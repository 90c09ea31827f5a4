// A batch of 99999999999: parses (it fits int64) but is above 2^31 - 1.
func.func @f(%q: tensor<99999999999x4x64x32xf32>) -> tensor<99999999999x4x64x32xf32> {
  // CHECK: {{^}}huge-dim.mlir:[[@LINE+1]]:16: error: 'attn.attention' op q dim 0 is 99999999999, larger than the supported maximum 2147483647{{$}}
  %out, %lse = attn.attention %q, %q, %q
      : tensor<99999999999x4x64x32xf32>, tensor<99999999999x4x64x32xf32>,
        tensor<99999999999x4x64x32xf32>
      -> tensor<99999999999x4x64x32xf32>, tensor<99999999999x4x64xf32>
  return %out : tensor<99999999999x4x64x32xf32>
}
// CHECK-NOT: error:
// CHECK: {{^}}exit=1{{$}}
