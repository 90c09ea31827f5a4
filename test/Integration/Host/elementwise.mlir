// Element-wise tensor code on the host: arith and math ops on tensors fuse
// into attn.elementwise kernels, checked against the fp64 reference, and
// their derived gradients against finite differences of the forward
// function (--gradcheck), including values whose gradients meet (a
// residual stream read twice, one tensor feeding two attentions).
//
// RUN: attnc %s -o %t.attnpkg --explain 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: attn-run %t.attnpkg --fn gelu_tanh --check | FileCheck %s --check-prefix=OUT
// RUN: attn-run %t.attnpkg --fn gelu_tanh_bwd --check --gradcheck | FileCheck %s --check-prefix=GELU
// RUN: attn-run %t.attnpkg --fn swiglu --shape d0_0=70 --check | FileCheck %s --check-prefix=OUT
// RUN: attn-run %t.attnpkg --fn swiglu_bwd --shape d0_0=70 --check --gradcheck | FileCheck %s --check-prefix=SWIGLU
// RUN: attn-run %t.attnpkg --fn swiglu_wide_bwd --shape d0_0=70 --check | FileCheck %s --check-prefix=WIDE
// RUN: attn-run %t.attnpkg --fn residual_attention --shape B=2 --shape Nq=77 --shape Nk=50 --check | FileCheck %s --check-prefix=OUT
// RUN: attn-run %t.attnpkg --fn residual_attention_bwd --shape B=2 --shape Nq=77 --shape Nk=50 --check --gradcheck | FileCheck %s --check-prefix=RESIDUAL
// RUN: attn-run %t.attnpkg --fn shared_query_bwd --shape B=1 --shape Nq=40 --shape Nk=40 --check --gradcheck | FileCheck %s --check-prefix=SHARED
// RUN: attn-run %t.attnpkg --fn broadcast --shape d0_0=59 --check | FileCheck %s --check-prefix=OUT
// RUN: attn-run %t.attnpkg --fn broadcast_bwd --shape d0_0=59 --check --gradcheck | FileCheck %s --check-prefix=BROADCAST
//
// Every remat policy gives the same gradients: saving everything the
// backward reads, or nothing but the forward's own results.
// RUN: attnc %s --remat=none -o %t.none.attnpkg --explain 2>&1 | FileCheck %s --check-prefix=EXPLAIN-NONE
// RUN: attn-run %t.none.attnpkg --fn residual_attention_bwd --shape B=2 --shape Nq=77 --shape Nk=50 --check --gradcheck | FileCheck %s --check-prefix=RESIDUAL
// RUN: attn-run %t.none.attnpkg --fn gelu_tanh_bwd --check --gradcheck | FileCheck %s --check-prefix=GELU
// RUN: attnc %s --remat=full -o %t.full.attnpkg --explain 2>&1 | FileCheck %s --check-prefix=EXPLAIN-FULL
// RUN: attn-run %t.full.attnpkg --fn residual_attention_bwd --shape B=2 --shape Nq=77 --shape Nk=50 --check --gradcheck | FileCheck %s --check-prefix=RESIDUAL
// RUN: attn-run %t.full.attnpkg --fn shared_query_bwd --shape B=1 --shape Nq=40 --shape Nk=40 --check --gradcheck | FileCheck %s --check-prefix=SHARED

// One kernel per chain; the gradients of all inputs of a fused chain are
// one kernel too.
// EXPLAIN-DAG: gelu_tanh: kernel gelu_tanh_elementwise0,
// EXPLAIN-DAG: gelu_tanh_bwd: kernel gelu_tanh_bwd_elementwise0,
// EXPLAIN-DAG: swiglu_bwd: kernel swiglu_bwd_elementwise0,
// EXPLAIN-NOT: swiglu_bwd: kernel swiglu_bwd_elementwise1,

// With the default policy the backward reads attention's out and lse from
// the forward pass instead of running the attention again.
// EXPLAIN-DAG: residual_attention_bwd: reads saved_out f32 [B, 4, Nq, 32] saved by residual_attention, 512 * B * Nq bytes
// EXPLAIN-DAG: residual_attention_bwd: reads saved_lse f32 [B, 4, Nq] saved by residual_attention, 16 * B * Nq bytes
// EXPLAIN-NOT: residual_attention_bwd: kernel residual_attention_bwd_attention0,
// EXPLAIN-NONE-DAG: residual_attention_bwd: reads saved_out f32 [B, 4, Nq, 32] saved by residual_attention, 512 * B * Nq bytes
// EXPLAIN-FULL-NOT: reads saved
// EXPLAIN-FULL: residual_attention_bwd: kernel residual_attention_bwd_attention0,

// OUT: out: rel_err {{.*}} ok

// GELU: gradcheck: {{.*}} ok
// GELU: dx: rel_err {{.*}} ok

// WIDE: dg: rel_err {{.*}} ok
// WIDE-NEXT: du: rel_err {{.*}} ok

// SWIGLU: gradcheck: {{.*}} ok
// SWIGLU: dg: rel_err {{.*}} ok
// SWIGLU-NEXT: du: rel_err {{.*}} ok

// RESIDUAL: gradcheck: {{.*}} ok
// RESIDUAL: dx: rel_err {{.*}} ok
// RESIDUAL-NEXT: dk: rel_err {{.*}} ok
// RESIDUAL-NEXT: dv: rel_err {{.*}} ok

// SHARED: gradcheck: {{.*}} ok
// SHARED: dq: rel_err {{.*}} ok
// SHARED-NEXT: dk: rel_err {{.*}} ok
// SHARED-NEXT: dv: rel_err {{.*}} ok

// The scalar takes no gradient, so the backward returns dx alone.
// BROADCAST: gradcheck: {{.*}} ok
// BROADCAST: dx: rel_err {{.*}} ok
// BROADCAST-NOT: ds

// GELU with the tanh approximation, in bf16 storage:
// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
!g = tensor<3x1000xbf16>
func.func @gelu_tanh(%x: !g) -> !g attributes {attn.backward} {
  %half = arith.constant dense<0.5> : !g
  %one = arith.constant dense<1.0> : !g
  %c = arith.constant dense<0.044715> : !g
  %s = arith.constant dense<0.7978845608> : !g
  %x2 = arith.mulf %x, %x : !g
  %x3 = arith.mulf %x2, %x : !g
  %cx3 = arith.mulf %c, %x3 : !g
  %inner = arith.addf %x, %cx3 : !g
  %scaled = arith.mulf %s, %inner : !g
  %t = math.tanh %scaled : !g
  %onet = arith.addf %one, %t : !g
  %hx = arith.mulf %half, %x : !g
  %y = arith.mulf %hx, %onet : !g
  return %y : !g
}

// SwiGLU's gate, silu(g) * u with silu(g) = g / (1 + exp(-g)), on rows of a
// dynamic count: the constant is a tensor.splat of that shape.
!r = tensor<?x64xf32>
func.func @swiglu(%g: !r, %u: !r) -> !r attributes {attn.backward} {
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %g, %c0 : !r
  %c1 = arith.constant 1.0 : f32
  %one = tensor.splat %c1[%rows] : !r
  %neg = arith.negf %g : !r
  %e = math.exp %neg : !r
  %den = arith.addf %one, %e : !r
  %silu = arith.divf %g, %den : !r
  %y = arith.mulf %silu, %u : !r
  return %y : !r
}

// The same gate with the negative half of g moved 100 lower, where
// exp(-x) overflows f32: the quotient is 0 there, and so is its tangent
// (the division's rule would give inf / inf). The shift has tangent 1.
// Checked against the fp64 reference only: finite differences across the
// kink at g = 0 are not a derivative.
func.func @swiglu_wide(%g: !r, %u: !r) -> !r attributes {attn.backward} {
  %y = attn.elementwise %g, %u : !r, !r -> !r {
  ^bb0(%a: f32, %b: f32):
    %zero = arith.constant 0.0 : f32
    %shift = arith.constant 100.0 : f32
    %one = arith.constant 1.0 : f32
    %below = arith.cmpf olt, %a, %zero : f32
    %far = arith.subf %a, %shift : f32
    %x = arith.select %below, %far, %a : f32
    %nx = arith.negf %x : f32
    %e = math.exp %nx : f32
    %den = arith.addf %one, %e : f32
    %silu = arith.divf %x, %den : f32
    %r = arith.mulf %silu, %b : f32
    attn.yield %r : f32
  }
  return %y : !r
}

// A residual stream read twice: as attention's query and by the add.
!x = tensor<?x4x?x32xf32>
!l = tensor<?x4x?xf32>
func.func @residual_attention(%x: !x, %k: !x, %v: !x) -> !x attributes {attn.backward} {
  %o, %lse = attn.attention %x, %k, %v {causal} : !x, !x, !x -> !x, !l
  %y = arith.addf %x, %o : !x
  return %y : !x
}

// One query for two attentions, whose outputs multiply: every input's
// gradient is a sum of two.
func.func @shared_query(%q: !x, %k: !x, %v: !x) -> !x attributes {attn.backward} {
  %o1, %l1 = attn.attention %q, %k, %v : !x, !x, !x -> !x, !l
  %o2, %l2 = attn.attention %q, %v, %k {causal} : !x, !x, !x -> !x, !l
  %y = arith.mulf %o1, %o2 : !x
  return %y : !x
}

// A rank-0 input is broadcast to every element (a learning rate, a loss
// scale); it takes no gradient. 1003 elements: whole 8-element chunks with
// the scalar in every lane, then the rest one by one.
func.func @broadcast(%x: tensor<?x17xbf16>, %s: tensor<f32>) -> tensor<?x17xbf16>
    attributes {attn.backward} {
  %y = attn.elementwise %x, %s : tensor<?x17xbf16>, tensor<f32> -> tensor<?x17xbf16> {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    %t = math.tanh %p : f32
    attn.yield %t : f32
  }
  return %y : tensor<?x17xbf16>
}
