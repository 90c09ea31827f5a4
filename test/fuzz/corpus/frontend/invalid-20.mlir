func.func @attention_dynamic_v_head_count(%q: tensor<1x4x64x32xf32>, %v: tensor<1x?x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %v
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x?x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}
