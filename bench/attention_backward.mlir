// The attnc side of bench/attention_backward.py: bf16 attention with dynamic
// batch and sequence length, 16 heads, head dims 64 and 128, causal and not;
// attn.backward gives each function @f a gradient function @f_bwd. Batch and
// length are dynamic, so these four pairs cover the benchmark's eight cases
// (B4 N4096 and B1 N16384 of each).
// Compile: attnc bench/attention_backward.mlir --target=sm_90a -o bench-backward.attnpkg

!q64 = tensor<?x16x?x64xbf16>
!q128 = tensor<?x16x?x128xbf16>
!lse = tensor<?x16x?xf32>

func.func @hd64(%q: !q64, %k: !q64, %v: !q64) -> (!q64, !lse)
    attributes {attn.backward} {
  %o, %l = attn.attention %q, %k, %v : !q64, !q64, !q64 -> !q64, !lse
  return %o, %l : !q64, !lse
}

func.func @hd64_causal(%q: !q64, %k: !q64, %v: !q64) -> (!q64, !lse)
    attributes {attn.backward} {
  %o, %l = attn.attention %q, %k, %v {causal} : !q64, !q64, !q64 -> !q64, !lse
  return %o, %l : !q64, !lse
}

func.func @hd128(%q: !q128, %k: !q128, %v: !q128) -> (!q128, !lse)
    attributes {attn.backward} {
  %o, %l = attn.attention %q, %k, %v : !q128, !q128, !q128 -> !q128, !lse
  return %o, %l : !q128, !lse
}

func.func @hd128_causal(%q: !q128, %k: !q128, %v: !q128) -> (!q128, !lse)
    attributes {attn.backward} {
  %o, %l = attn.attention %q, %k, %v {causal} : !q128, !q128, !q128 -> !q128, !lse
  return %o, %l : !q128, !lse
}
