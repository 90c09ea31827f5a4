func.func @attention_gqa_4_to_1(%q: tensor<?x16x?x128xbf16>, %k: tensor<?x4x?x128xbf16>,
                                %v: tensor<?x4x?x128xbf16>)
    -> (tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>) {
  %out, %lse = attn.attention %q, %k, %v {causal}
      : tensor<?x16x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>
      -> tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>
  return %out, %lse : tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>
}
