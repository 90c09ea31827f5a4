func.func @linear_attention_dim_near_int64_max(%q: tensor<9223372036854775807x4x64x32xf32>) {
  %out = attn.linear_attention relu %q, %q, %q
      : tensor<9223372036854775807x4x64x32xf32>, tensor<9223372036854775807x4x64x32xf32>,
        tensor<9223372036854775807x4x64x32xf32> -> tensor<9223372036854775807x4x64x32xf32>
  return
}
