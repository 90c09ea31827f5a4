// The attnc side of bench/documents.py: packed documents, causal inside
// each, from an i32 document id per (batch, position), bf16, 16 heads of
// dim 128. The mask region reads the ids (a capture); the tile classifier
// bounds them per tile, so tiles of one document run unmasked and tiles of
// different documents are skipped.
// Compile: attnc bench/documents.mlir --target=sm_90a -o documents.attnpkg

!t = tensor<?x16x?x128xbf16>
!lse = tensor<?x16x?xf32>

func.func @documents(%q: !t, %k: !t, %v: !t, %doc: tensor<?x?xi32>)
    -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v captures(%doc : tensor<?x?xi32>) {causal}
      : !t, !t, !t -> !t, !lse
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %ids: tensor<?x?xi32>):
      %dq = tensor.extract %ids[%b, %qi] : tensor<?x?xi32>
      %dk = tensor.extract %ids[%b, %ki] : tensor<?x?xi32>
      %same = arith.cmpi eq, %dq, %dk : i32
      attn.yield %same : i1
    }
  return %o, %l : !t, !lse
}
