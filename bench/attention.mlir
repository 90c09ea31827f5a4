// The attnc side of bench/attention.py: attention with dynamic batch and
// sequence length, 16 heads, head dims 64, 128 and 256, causal and not, in
// bf16 and f16; head dims 80 and 96 causal (they fill a 64-column swizzle
// panel partly); grouped-query attention, 32 query heads over 8 key/value
// heads, causal.
// Compile: attnc bench/attention.mlir --target=sm_90a -o bench.attnpkg

!q64 = tensor<?x16x?x64xbf16>
!q128 = tensor<?x16x?x128xbf16>
!q80 = tensor<?x16x?x80xbf16>
!q96 = tensor<?x16x?x96xbf16>
!q256 = tensor<?x16x?x256xbf16>
!h64 = tensor<?x16x?x64xf16>
!h128 = tensor<?x16x?x128xf16>
!h256 = tensor<?x16x?x256xf16>
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

func.func @hd256(%q: !q256, %k: !q256, %v: !q256) -> (!q256, !lse) {
  %o, %l = attn.attention %q, %k, %v : !q256, !q256, !q256 -> !q256, !lse
  return %o, %l : !q256, !lse
}

func.func @hd256_causal(%q: !q256, %k: !q256, %v: !q256) -> (!q256, !lse) {
  %o, %l = attn.attention %q, %k, %v {causal} : !q256, !q256, !q256 -> !q256, !lse
  return %o, %l : !q256, !lse
}

func.func @f16_hd64(%q: !h64, %k: !h64, %v: !h64) -> (!h64, !lse) {
  %o, %l = attn.attention %q, %k, %v : !h64, !h64, !h64 -> !h64, !lse
  return %o, %l : !h64, !lse
}

func.func @f16_hd64_causal(%q: !h64, %k: !h64, %v: !h64) -> (!h64, !lse) {
  %o, %l = attn.attention %q, %k, %v {causal} : !h64, !h64, !h64 -> !h64, !lse
  return %o, %l : !h64, !lse
}

func.func @f16_hd128(%q: !h128, %k: !h128, %v: !h128) -> (!h128, !lse) {
  %o, %l = attn.attention %q, %k, %v : !h128, !h128, !h128 -> !h128, !lse
  return %o, %l : !h128, !lse
}

func.func @f16_hd128_causal(%q: !h128, %k: !h128, %v: !h128) -> (!h128, !lse) {
  %o, %l = attn.attention %q, %k, %v {causal} : !h128, !h128, !h128 -> !h128, !lse
  return %o, %l : !h128, !lse
}

func.func @f16_hd256(%q: !h256, %k: !h256, %v: !h256) -> (!h256, !lse) {
  %o, %l = attn.attention %q, %k, %v : !h256, !h256, !h256 -> !h256, !lse
  return %o, %l : !h256, !lse
}

func.func @f16_hd256_causal(%q: !h256, %k: !h256, %v: !h256) -> (!h256, !lse) {
  %o, %l = attn.attention %q, %k, %v {causal} : !h256, !h256, !h256 -> !h256, !lse
  return %o, %l : !h256, !lse
}

func.func @gqa_causal(%q: tensor<?x32x?x128xbf16>, %k: tensor<?x8x?x128xbf16>,
                      %v: tensor<?x8x?x128xbf16>)
    -> (tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {causal}
      : tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>
      -> tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>
  return %o, %l : tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>
}
