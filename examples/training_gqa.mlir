// Training: causal grouped-query attention (8 query heads sharing 2
// key/value heads) with a softcapped score, marked `attn.backward`, so the
// package also holds its gradient @gqa_softcap_bwd(q, k, v, out, lse, dout)
// -> (dq, dk, dv), which attnc derives, softcap's derivative included.
// attn-run checks the gradients against the fp64 reference gradients, with
// out and lse from the fp64 forward.
//
// EXAMPLE-RUN: --fn gqa_softcap --shape B=1 --shape Nq=512 --shape Nk=512
// EXAMPLE-RUN: --fn gqa_softcap_bwd --shape B=1 --shape Nq=512 --shape Nk=512
func.func @gqa_softcap(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>,
                       %v: tensor<?x2x?x64xbf16>)
    -> (tensor<?x8x?x64xbf16>, tensor<?x8x?xf32>) attributes {attn.backward} {
  %out, %lse = attn.attention %q, %k, %v {causal}
      : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16>
      -> tensor<?x8x?x64xbf16>, tensor<?x8x?xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %cap = arith.constant 30.0 : f32
      %x = arith.divf %s, %cap : f32
      %t = math.tanh %x : f32
      %r = arith.mulf %t, %cap : f32
      attn.yield %r : f32
    }
  return %out, %lse : tensor<?x8x?x64xbf16>, tensor<?x8x?xf32>
}
