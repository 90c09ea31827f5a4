func.func @attention_out_static_for_dynamic_q(%q: tensor<?x4x?x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<?x4x?x32xf32>, tensor<?x4x?x32xf32>, tensor<?x4x?x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<?x4x?xf32>
  return
}
