// The model of autograd_check.py (not a lit test: see lit.local.cfg): f32
// and bf16 attention, causal and not, grouped-query heads, dynamic batch and
// sequence length; each gets a gradient function @<name>_bwd, except
// @bf16_causal_gqa_fwd_only, a forward-only function (a torch op without
// an autograd formula).
// Compile: attnc test/python/gpu/autograd_model.mlir --target=sm_90a -o autograd_model.attnpkg

!f32_q = tensor<?x4x?x64xf32>
!f32_lse = tensor<?x4x?xf32>
!f32_gqa_q = tensor<?x8x?x64xf32>
!f32_gqa_kv = tensor<?x2x?x64xf32>
!f32_gqa_lse = tensor<?x8x?xf32>
!bf16_q = tensor<?x4x?x128xbf16>
!bf16_lse = tensor<?x4x?xf32>
!bf16_gqa_q = tensor<?x8x?x64xbf16>
!bf16_gqa_kv = tensor<?x2x?x64xbf16>
!bf16_gqa_lse = tensor<?x8x?xf32>

func.func @f32_plain(%q: !f32_q, %k: !f32_q, %v: !f32_q) -> (!f32_q, !f32_lse)
    attributes {attn.backward} {
  %o, %l = attn.attention %q, %k, %v : !f32_q, !f32_q, !f32_q -> !f32_q, !f32_lse
  return %o, %l : !f32_q, !f32_lse
}

func.func @f32_causal_gqa(%q: !f32_gqa_q, %k: !f32_gqa_kv, %v: !f32_gqa_kv)
    -> (!f32_gqa_q, !f32_gqa_lse) attributes {attn.backward} {
  %o, %l = attn.attention %q, %k, %v {causal}
      : !f32_gqa_q, !f32_gqa_kv, !f32_gqa_kv -> !f32_gqa_q, !f32_gqa_lse
  return %o, %l : !f32_gqa_q, !f32_gqa_lse
}

func.func @bf16_plain(%q: !bf16_q, %k: !bf16_q, %v: !bf16_q) -> (!bf16_q, !bf16_lse)
    attributes {attn.backward} {
  %o, %l = attn.attention %q, %k, %v : !bf16_q, !bf16_q, !bf16_q -> !bf16_q, !bf16_lse
  return %o, %l : !bf16_q, !bf16_lse
}

func.func @bf16_causal(%q: !bf16_q, %k: !bf16_q, %v: !bf16_q) -> (!bf16_q, !bf16_lse)
    attributes {attn.backward} {
  %o, %l = attn.attention %q, %k, %v {causal}
      : !bf16_q, !bf16_q, !bf16_q -> !bf16_q, !bf16_lse
  return %o, %l : !bf16_q, !bf16_lse
}

func.func @bf16_gqa(%q: !bf16_gqa_q, %k: !bf16_gqa_kv, %v: !bf16_gqa_kv)
    -> (!bf16_gqa_q, !bf16_gqa_lse) attributes {attn.backward} {
  %o, %l = attn.attention %q, %k, %v
      : !bf16_gqa_q, !bf16_gqa_kv, !bf16_gqa_kv -> !bf16_gqa_q, !bf16_gqa_lse
  return %o, %l : !bf16_gqa_q, !bf16_gqa_lse
}

func.func @bf16_causal_gqa(%q: !bf16_gqa_q, %k: !bf16_gqa_kv, %v: !bf16_gqa_kv)
    -> (!bf16_gqa_q, !bf16_gqa_lse) attributes {attn.backward} {
  %o, %l = attn.attention %q, %k, %v {causal}
      : !bf16_gqa_q, !bf16_gqa_kv, !bf16_gqa_kv -> !bf16_gqa_q, !bf16_gqa_lse
  return %o, %l : !bf16_gqa_q, !bf16_gqa_lse
}

func.func @bf16_causal_gqa_fwd_only(%q: !bf16_gqa_q, %k: !bf16_gqa_kv,
                                    %v: !bf16_gqa_kv)
    -> (!bf16_gqa_q, !bf16_gqa_lse) {
  %o, %l = attn.attention %q, %k, %v {causal}
      : !bf16_gqa_q, !bf16_gqa_kv, !bf16_gqa_kv -> !bf16_gqa_q, !bf16_gqa_lse
  return %o, %l : !bf16_gqa_q, !bf16_gqa_lse
}
