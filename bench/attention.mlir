// The attnc side of bench/attention.py: bf16 attention with dynamic batch and
// sequence length, 16 heads, head dims 64 and 128, causal and not, and head
// dims 80 and 96 causal (they fill a 64-column swizzle panel partly).
// Compile: attnc bench/attention.mlir --target=sm_90a -o bench.attnpkg

!q64 = tensor<?x16x?x64xbf16>
!q128 = tensor<?x16x?x128xbf16>
!q80 = tensor<?x16x?x80xbf16>
!q96 = tensor<?x16x?x96xbf16>
!lse = tensor<?x16x?xf32>

func.func @hd64(%q: !q64, %k: !q64, %v: !q64) -> (!q64, !lse) {
  %o, %l = attn.attention %q, %k, %v : !q64, !q64, !q64 -> !q64, !lse
  return %o, %l : !q64, !lse
}

func.func @hd64_causal(%q: !q64, %k: !q64, %v: !q64) -> (!q64, !lse) {
  %o, %l = attn.attention %q, %k, %v {causal} : !q64, !q64, !q64 -> !q64, !lse
  return %o, %l : !q64, !lse
}

func.func @hd128(%q: !q128, %k: !q128, %v: !q128) -> (!q128, !lse) {
  %o, %l = attn.attention %q, %k, %v : !q128, !q128, !q128 -> !q128, !lse
  return %o, %l : !q128, !lse
}

func.func @hd128_causal(%q: !q128, %k: !q128, %v: !q128) -> (!q128, !lse) {
  %o, %l = attn.attention %q, %k, %v {causal} : !q128, !q128, !q128 -> !q128, !lse
  return %o, %l : !q128, !lse
}

func.func @hd80_causal(%q: !q80, %k: !q80, %v: !q80) -> (!q80, !lse) {
  %o, %l = attn.attention %q, %k, %v {causal} : !q80, !q80, !q80 -> !q80, !lse
  return %o, %l : !q80, !lse
}

func.func @hd96_causal(%q: !q96, %k: !q96, %v: !q96) -> (!q96, !lse) {
  %o, %l = attn.attention %q, %k, %v {causal} : !q96, !q96, !q96 -> !q96, !lse
  return %o, %l : !q96, !lse
}
