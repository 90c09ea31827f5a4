func.func @attention_limits(%q: tensor<1x1x2147483647x1024xf32>, %k: tensor<1x1x1x1024xf32>,
                            %v: tensor<1x1x1x1024xf32>)
    -> (tensor<1x1x2147483647x1024xf32>, tensor<1x1x2147483647xf32>) {
  %out, %lse = attn.attention %q, %k, %v
      : tensor<1x1x2147483647x1024xf32>, tensor<1x1x1x1024xf32>, tensor<1x1x1x1024xf32>
      -> tensor<1x1x2147483647x1024xf32>, tensor<1x1x2147483647xf32>
  return %out, %lse : tensor<1x1x2147483647x1024xf32>, tensor<1x1x2147483647xf32>
}
