func.func @attention_mask_document(%q: tensor<1x4x1024x64xbf16>, %k: tensor<1x4x1024x64xbf16>,
                                   %v: tensor<1x4x1024x64xbf16>)
    -> (tensor<1x4x1024x64xbf16>, tensor<1x4x1024xf32>) {
  %out, %lse = attn.attention %q, %k, %v {causal}
      : tensor<1x4x1024x64xbf16>, tensor<1x4x1024x64xbf16>, tensor<1x4x1024x64xbf16>
      -> tensor<1x4x1024x64xbf16>, tensor<1x4x1024xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %doc = arith.constant 256 : index
      %qdoc = arith.divui %qi, %doc : index
      %kdoc = arith.divui %ki, %doc : index
      %same = arith.cmpi eq, %qdoc, %kdoc : index
      attn.yield %same : i1
    }
  return %out, %lse : tensor<1x4x1024x64xbf16>, tensor<1x4x1024xf32>
}
