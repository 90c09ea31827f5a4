func.func @linear_attention_seq_mismatch_k_v(%q: tensor<1x4x64x32xf32>, %k: tensor<1x4x64x32xf32>,
                                             %v: tensor<1x4x65x32xf32>) {
  %out = attn.linear_attention relu %q, %k, %v
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x65x32xf32>
      -> tensor<1x4x64x32xf32>
  return
}
