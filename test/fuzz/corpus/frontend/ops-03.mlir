func.func @attention_causal(%q: tensor<1x4x64x32xbf16>, %k: tensor<1x4x64x32xbf16>,
                            %v: tensor<1x4x64x32xbf16>)
    -> (tensor<1x4x64x32xbf16>, tensor<1x4x64xf32>) {
  %out, %lse = attn.attention %q, %k, %v {causal}
      : tensor<1x4x64x32xbf16>, tensor<1x4x64x32xbf16>, tensor<1x4x64x32xbf16>
      -> tensor<1x4x64x32xbf16>, tensor<1x4x64xf32>
  return %out, %lse : tensor<1x4x64x32xbf16>, tensor<1x4x64xf32>
}
