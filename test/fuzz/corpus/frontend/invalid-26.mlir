func.func @attention_v_head_dim_over_1024(%q: tensor<1x4x64x32xf32>, %v: tensor<1x4x64x4096xf32>) {
  %out, %lse = attn.attention %q, %q, %v
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x4096xf32>
      -> tensor<1x4x64x4096xf32>, tensor<1x4x64xf32>
  return
}
