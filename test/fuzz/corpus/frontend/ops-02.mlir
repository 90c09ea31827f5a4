func.func @attention_dynamic_batch_and_seq(%q: tensor<?x8x?x64xf16>, %k: tensor<?x8x?x64xf16>,
                                           %v: tensor<?x8x?x64xf16>)
    -> (tensor<?x8x?x64xf16>, tensor<?x8x?xf32>) {
  %out, %lse = attn.attention %q, %k, %v
      : tensor<?x8x?x64xf16>, tensor<?x8x?x64xf16>, tensor<?x8x?x64xf16>
      -> tensor<?x8x?x64xf16>, tensor<?x8x?xf32>
  return %out, %lse : tensor<?x8x?x64xf16>, tensor<?x8x?xf32>
}
