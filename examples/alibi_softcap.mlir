// Two score modifications: ALiBi (a per-head linear distance penalty) under a
// causal mask, and Gemma-style logit softcapping 30 * tanh(s / 30).
//
// EXAMPLE-RUN: --fn alibi --shape B=1 --shape Nq=1024 --shape Nk=1024
// EXAMPLE-RUN: --fn softcap --shape B=1 --shape Nq=512 --shape Nk=2048
func.func @alibi(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x8x?x128xbf16>,
                 %v: tensor<?x8x?x128xbf16>)
    -> (tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>) {
  %out, %lse = attn.attention %q, %k, %v {causal}
      : tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>
      -> tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      // slope(h) = 2^-(h + 1)
      %one = arith.constant 1 : index
      %h1 = arith.addi %h, %one : index
      %h1i = arith.index_cast %h1 : index to i64
      %h1f = arith.sitofp %h1i : i64 to f32
      %neg = arith.negf %h1f : f32
      %slope = math.exp2 %neg : f32
      %dist = arith.subi %qi, %ki : index
      %disti = arith.index_cast %dist : index to i64
      %distf = arith.sitofp %disti : i64 to f32
      %bias = arith.mulf %slope, %distf : f32
      %r = arith.subf %s, %bias : f32
      attn.yield %r : f32
    }
  return %out, %lse : tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>
}

func.func @softcap(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x8x?x128xbf16>,
                   %v: tensor<?x8x?x128xbf16>)
    -> (tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>) {
  %out, %lse = attn.attention %q, %k, %v
      : tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>
      -> tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %cap = arith.constant 30.0 : f32
      %x = arith.divf %s, %cap : f32
      %t = math.tanh %x : f32
      %r = arith.mulf %t, %cap : f32
      attn.yield %r : f32
    }
  return %out, %lse : tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>
}
