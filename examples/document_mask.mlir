// Packed documents of 128 tokens each: a query attends causally within its
// own document. Document ids come from the indices, so whole tiles outside
// the diagonal documents are proven empty and skipped.
//
// EXAMPLE-RUN: --fn document_mask --shape B=2 --shape Nq=1024 --shape Nk=1024
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
