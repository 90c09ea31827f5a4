func.func @attention_seq_mismatch_k_v(%q: tensor<1x4x64x32xf32>, %k: tensor<1x4x128x32xf32>,
                                      %v: tensor<1x4x96x32xf32>) {
  %out, %lse = attn.attention %q, %k, %v
      : tensor<1x4x64x32xf32>, tensor<1x4x128x32xf32>, tensor<1x4x96x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}
