func.func @attention_batch_mismatch_q_k(%q: tensor<2x4x64x32xf32>, %k: tensor<3x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %k, %k
      : tensor<2x4x64x32xf32>, tensor<3x4x64x32xf32>, tensor<3x4x64x32xf32>
      -> tensor<2x4x64x32xf32>, tensor<2x4x64xf32>
  return
}
