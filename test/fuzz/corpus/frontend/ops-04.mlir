func.func @attention_bottom_right(%q: tensor<1x4x1x32xf16>, %k: tensor<1x4x?x32xf16>,
                                  %v: tensor<1x4x?x32xf16>)
    -> (tensor<1x4x1x32xf16>, tensor<1x4x1xf32>) {
  %out, %lse = attn.attention %q, %k, %v {causal, bottom_right, window_left = 1024}
      : tensor<1x4x1x32xf16>, tensor<1x4x?x32xf16>, tensor<1x4x?x32xf16>
      -> tensor<1x4x1x32xf16>, tensor<1x4x1xf32>
  return %out, %lse : tensor<1x4x1x32xf16>, tensor<1x4x1xf32>
}
