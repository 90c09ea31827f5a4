// The model of autograd.test: functions with derived gradient functions
// (attn.backward), whose outputs exercise each way the gradient function
// can take cotangents, and one function without a gradient.

!q4 = tensor<?x4x?x16xf32>
!kv2 = tensor<?x2x?x16xf32>
!lse4 = tensor<?x4x?xf32>
!t = tensor<?x2x?x16xf32>
!l = tensor<?x2x?xf32>
!b = tensor<?x2x?x32xbf16>

// Causal grouped-query attention: out takes a cotangent, lse none.
func.func @gqa(%q: !q4, %k: !kv2, %v: !kv2) -> (!q4, !lse4)
    attributes {attn.backward} {
  %o, %l = attn.attention %q, %k, %v {causal} : !q4, !kv2, !kv2 -> !q4, !lse4
  return %o, %l : !q4, !lse4
}

func.func @bf16(%q: !b, %k: !b, %v: !b) -> (!b, !l) attributes {attn.backward} {
  %o, %l = attn.attention %q, %k, %v : !b, !b, !b -> !b, !l
  return %o, %l : !b, !l
}

// lse returned first: the cotangent belongs to the second output.
func.func @lse_first(%q: !t, %k: !t, %v: !t) -> (!l, !t)
    attributes {attn.backward} {
  %o, %l = attn.attention %q, %k, %v : !t, !t, !t -> !t, !l
  return %l, %o : !l, !t
}

// One output, one cotangent (the gradient function recomputes lse).
func.func @out_only(%q: !t, %k: !t, %v: !t) -> !t attributes {attn.backward} {
  %o, %l = attn.attention %q, %k, %v : !t, !t, !t -> !t, !l
  return %o : !t
}

// Two attentions: cotangents for outputs 0 and 2, named after the ops that
// read them (dout, arg11), not after the outputs.
func.func @two(%q: !t, %k: !t, %v: !t, %q2: !t, %k2: !t, %v2: !t)
    -> (!t, !l, !t, !l) attributes {attn.backward} {
  %o, %l = attn.attention %q, %k, %v : !t, !t, !t -> !t, !l
  %o2, %l2 = attn.attention %q2, %k2, %v2 {causal} : !t, !t, !t -> !t, !l
  return %o, %l, %o2, %l2 : !t, !l, !t, !l
}

func.func @fwd_only(%q: !t, %k: !t, %v: !t) -> (!t, !l) {
  %o, %l = attn.attention %q, %k, %v : !t, !t, !t -> !t, !l
  return %o, %l : !t, !l
}
