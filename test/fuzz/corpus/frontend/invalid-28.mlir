func.func @attention_batch_mismatch_k_v(%q: tensor<?x4x64x32xf32>, %k: tensor<2x4x64x32xf32>,
                                        %v: tensor<5x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %k, %v
      : tensor<?x4x64x32xf32>, tensor<2x4x64x32xf32>, tensor<5x4x64x32xf32>
      -> tensor<?x4x64x32xf32>, tensor<?x4x64xf32>
  return
}
