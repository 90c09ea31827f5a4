// Score regions on the host backend against the fp64 reference: ALiBi under
// a causal mask (per-head slopes) and softcapping.
//
// RUN: attnc %s -o %t.attnpkg
// RUN: attn-run %t.attnpkg --fn alibi --shape Nq=300 --shape Nk=300 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn softcap --shape Nq=200 --shape Nk=333 --check | FileCheck %s

// CHECK: seed:
// CHECK: out: rel_err {{.*}} ok
// CHECK-NEXT: lse: rel_err {{.*}} ok

!t = tensor<1x4x?x64xf32>
!lse = tensor<1x4x?xf32>

func.func @alibi(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v {causal} : !t, !t, !t -> !t, !lse
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %one = arith.constant 1 : index
      %h1 = arith.addi %h, %one : index
      %h1i = arith.index_cast %h1 : index to i64
      %h1f = arith.sitofp %h1i : i64 to f32
      %neg = arith.negf %h1f : f32
      %slope = math.exp2 %neg : f32
      %d = arith.subi %qi, %ki : index
      %di = arith.index_cast %d : index to i64
      %df = arith.sitofp %di : i64 to f32
      %bias = arith.mulf %slope, %df : f32
      %r = arith.subf %s, %bias : f32
      attn.yield %r : f32
    }
  return %o, %l : !t, !lse
}

func.func @softcap(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v {scale = 0.5 : f32} : !t, !t, !t -> !t, !lse
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %cap = arith.constant 5.0 : f32
      %x = arith.divf %s, %cap : f32
      %t = math.tanh %x : f32
      %r = arith.mulf %t, %cap : f32
      attn.yield %r : f32
    }
  return %o, %l : !t, !lse
}
