// The model the binding tests compile: causal grouped-query attention in f32
// (4 query heads over 2 key/value heads) and plain attention in bf16, with
// dynamic batch and sequence lengths.

func.func @attention_fwd(%q: tensor<?x4x?x16xf32>, %k: tensor<?x2x?x16xf32>,
                         %v: tensor<?x2x?x16xf32>)
    -> (tensor<?x4x?x16xf32>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {causal}
      : tensor<?x4x?x16xf32>, tensor<?x2x?x16xf32>, tensor<?x2x?x16xf32>
      -> tensor<?x4x?x16xf32>, tensor<?x4x?xf32>
  return %o, %l : tensor<?x4x?x16xf32>, tensor<?x4x?xf32>
}

func.func @bf16(%q: tensor<?x2x?x32xbf16>, %k: tensor<?x2x?x32xbf16>,
                %v: tensor<?x2x?x32xbf16>)
    -> (tensor<?x2x?x32xbf16>, tensor<?x2x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
      : tensor<?x2x?x32xbf16>, tensor<?x2x?x32xbf16>, tensor<?x2x?x32xbf16>
      -> tensor<?x2x?x32xbf16>, tensor<?x2x?xf32>
  return %o, %l : tensor<?x2x?x32xbf16>, tensor<?x2x?xf32>
}
