func.func @linear_attention_elu1_causal(%q: tensor<2x8x1024x64xf32>, %k: tensor<2x8x1024x64xf32>,
                                        %v: tensor<2x8x1024x64xf32>) -> tensor<2x8x1024x64xf32> {
  %out = attn.linear_attention elu1 %q, %k, %v {causal}
      : tensor<2x8x1024x64xf32>, tensor<2x8x1024x64xf32>, tensor<2x8x1024x64xf32>
      -> tensor<2x8x1024x64xf32>
  return %out : tensor<2x8x1024x64xf32>
}
