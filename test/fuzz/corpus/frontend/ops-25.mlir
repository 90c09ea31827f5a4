func.func @linear_attention_favor_causal_bounds(%q: tensor<1x4x?x64xf32>, %k: tensor<1x4x?x64xf32>,
                                                %v: tensor<1x4x?x64xf32>)
    -> (tensor<1x4x?x64xf32>, tensor<1x4x?x64xf32>) {
  %a = attn.linear_attention favor %q, %k, %v {causal, num_features = 1, seed = 0}
      : tensor<1x4x?x64xf32>, tensor<1x4x?x64xf32>, tensor<1x4x?x64xf32> -> tensor<1x4x?x64xf32>
  %b = attn.linear_attention favor %q, %k, %v {causal, num_features = 4096, seed = -7}
      : tensor<1x4x?x64xf32>, tensor<1x4x?x64xf32>, tensor<1x4x?x64xf32> -> tensor<1x4x?x64xf32>
  return %a, %b : tensor<1x4x?x64xf32>, tensor<1x4x?x64xf32>
}
