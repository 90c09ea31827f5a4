// The attnc side of bench/decode.py: one decoding step of grouped-query
// attention, 32 query heads over 8 key/value heads, head dim 128, bf16: a
// new token per sequence (Nq = 1) against a cache of Nk keys, which it sees
// whole (bottom-right causal). attnc splits the keys into ranges
// (attn-split-keys) on a GPU.
// Compile: attnc bench/decode.mlir --target=sm_90a -o decode.attnpkg

!q = tensor<?x32x1x128xbf16>
!kv = tensor<?x8x?x128xbf16>
!lse = tensor<?x32x1xf32>

func.func @decode(%q: !q, %k: !kv, %v: !kv) -> (!q, !lse) {
  %o, %l = attn.attention %q, %k, %v {causal, bottom_right}
      : !q, !kv, !kv -> !q, !lse
  return %o, %l : !q, !lse
}
