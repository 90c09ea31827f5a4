func.func @attention_window(%q: tensor<1x4x64x32xf16>, %k: tensor<1x4x64x32xf16>,
                            %v: tensor<1x4x64x32xf16>)
    -> (tensor<1x4x64x32xf16>, tensor<1x4x64xf32>) {
  %out, %lse = attn.attention %q, %k, %v {window_left = 128, window_right = 0}
      : tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>
      -> tensor<1x4x64x32xf16>, tensor<1x4x64xf32>
  return %out, %lse : tensor<1x4x64x32xf16>, tensor<1x4x64xf32>
}
