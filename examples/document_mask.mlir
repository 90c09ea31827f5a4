// Packed documents of 128 tokens each: a query attends causally within its
// own document. Document ids come from the indices, so whole tiles outside
// the diagonal documents are proven empty and skipped.
//
// @document_ids (8 heads of dim 128) reads the documents from an i32 id per
// (batch, position) instead, for documents of any lengths: a capture of the
// mask region (attn-run fills it with small random integers; give its shape
// with --shape doc=BxN, after its argument). Tiles are classified from the
// ids they cover.
//
// EXAMPLE-RUN: --fn document_mask --shape B=2 --shape Nq=1024 --shape Nk=1024
// EXAMPLE-RUN: --fn document_ids --shape B=2 --shape Nq=1024 --shape Nk=1024 --shape doc=2x1024
func.func @document_mask(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x4x?x64xbf16>,
                         %v: tensor<?x4x?x64xbf16>)
    -> (tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>) {
  %out, %lse = attn.attention %q, %k, %v {causal}
      : tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>
      -> tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %doc_len = arith.constant 128 : index
      %qdoc = arith.divui %qi, %doc_len : index
      %kdoc = arith.divui %ki, %doc_len : index
      %same = arith.cmpi eq, %qdoc, %kdoc : index
      attn.yield %same : i1
    }
  return %out, %lse : tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>
}

func.func @document_ids(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x8x?x128xbf16>,
                        %v: tensor<?x8x?x128xbf16>, %doc: tensor<?x?xi32>)
    -> (tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>) {
  %out, %lse = attn.attention %q, %k, %v captures(%doc : tensor<?x?xi32>)
      {causal}
      : tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>
      -> tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %ids: tensor<?x?xi32>):
      %qdoc = tensor.extract %ids[%b, %qi] : tensor<?x?xi32>
      %kdoc = tensor.extract %ids[%b, %ki] : tensor<?x?xi32>
      %same = arith.cmpi eq, %qdoc, %kdoc : i32
      attn.yield %same : i1
    }
  return %out, %lse : tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>
}
