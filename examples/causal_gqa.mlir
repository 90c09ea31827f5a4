// Causal grouped-query attention: 16 query heads share 4 key/value heads,
// bf16 inputs, dynamic batch and sequence length.
//
// EXAMPLE-RUN: --fn attention_fwd --shape B=2 --shape Nq=1024 --shape Nk=1024
func.func @attention_fwd(%q: tensor<?x16x?x128xbf16>, %k: tensor<?x4x?x128xbf16>,
                         %v: tensor<?x4x?x128xbf16>)
    -> (tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>) {
  %out, %lse = attn.attention %q, %k, %v {causal}
      : tensor<?x16x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>
      -> tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>
  return %out, %lse : tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>
}
