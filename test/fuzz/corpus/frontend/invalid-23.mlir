func.func @attention_dynamic_v_head_dim(%q: tensor<1x4x64x32xf32>, %v: tensor<1x4x64x?xf32>) {
  %out, %lse = attn.attention %q, %q, %v
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x?xf32>
      -> tensor<1x4x64x?xf32>, tensor<1x4x64xf32>
  return
}
