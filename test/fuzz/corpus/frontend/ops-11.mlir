func.func @attention_mqa(%q: tensor<2x32x1x128xf16>, %k: tensor<2x1x4096x128xf16>,
                         %v: tensor<2x1x4096x128xf16>)
    -> (tensor<2x32x1x128xf16>, tensor<2x32x1xf32>) {
  %out, %lse = attn.attention %q, %k, %v
      : tensor<2x32x1x128xf16>, tensor<2x1x4096x128xf16>, tensor<2x1x4096x128xf16>
      -> tensor<2x32x1x128xf16>, tensor<2x32x1xf32>
  return %out, %lse : tensor<2x32x1x128xf16>, tensor<2x32x1xf32>
}
