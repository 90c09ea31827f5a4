// Mask and score regions that read captured tensors (attn.attention's
// `captures`), run on the host against the fp64 reference, forward and
// backward: a document id per (batch, position) as a packed-sequence mask,
// and a per-head f32 bias table added to the score. attn-run fills an i32
// capture with small random integers (-3..3), so neighbouring positions
// share or differ in their document at random; the bias table is smaller
// than the score matrix, so the reads past its end give 0 (the documented
// meaning of an index outside a capture). The tile classifier bounds a
// capture read by the ids over a tile's rows or keys: the ids past a short
// capture's end are all 0, which makes tiles full, and @rare_keys allows
// only keys whose value is 3 (about 1 in 160), which leaves most key tiles
// empty.
//
// RUN: attnc %s -o %t.attnpkg
// RUN: attn-run %t.attnpkg --fn documents --shape B=2 --shape Nq=150 --shape Nk=150 --shape doc=2x150 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn documents --shape B=1 --shape Nq=300 --shape Nk=300 --shape doc=1x40 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn rare_keys --shape B=2 --shape Nq=100 --shape Nk=400 --shape flag=2x400 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn bias_table --shape Nq=70 --shape Nk=90 --shape bias=2x64x64 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn documents_bwd --shape B=2 --shape Nq=130 --shape Nk=130 --shape doc=2x130 --check | FileCheck %s --check-prefix=GRAD
// RUN: attn-run %t.attnpkg --fn bias_table_bwd --shape Nq=70 --shape Nk=90 --shape bias=2x64x64 --check | FileCheck %s --check-prefix=GRAD
//
// RUN: attnc %s --emit=mlir -o - | FileCheck %s --check-prefix=BWD

// CHECK: seed:
// CHECK: out: rel_err {{.*}} ok
// CHECK-NEXT: lse: rel_err {{.*}} ok

// GRAD: seed:
// GRAD: dq: rel_err {{.*}} ok
// GRAD-NEXT: dk: rel_err {{.*}} ok
// GRAD-NEXT: dv: rel_err {{.*}} ok

// The documents' gradient takes the ids but returns no gradient for them.
// BWD-LABEL: func.func @documents_bwd(
// BWD-SAME:      %{{.*}}: tensor<?x?xi32>
// BWD-SAME:      -> (tensor<?x4x?x64xf32> {attn.gradient_of_argument = 0 : i64},
// BWD-SAME:          tensor<?x2x?x64xf32> {attn.gradient_of_argument = 2 : i64},
// BWD-SAME:          tensor<?x2x?x64xf32> {attn.gradient_of_argument = 3 : i64})
// BWD:         attn.attention_grad {{.*}} captures(%{{.*}} : tensor<?x?xi32>)

!q = tensor<?x4x?x64xf32>
!kv = tensor<?x2x?x64xf32>
!lse = tensor<?x4x?xf32>

func.func @documents(%q: !q, %doc: tensor<?x?xi32>, %k: !kv, %v: !kv)
    -> (!q, !lse) attributes {attn.backward} {
  %o, %l = attn.attention %q, %k, %v captures(%doc : tensor<?x?xi32>) {causal}
      : !q, !kv, !kv -> !q, !lse
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %d: tensor<?x?xi32>):
      %dq = tensor.extract %d[%b, %qi] : tensor<?x?xi32>
      %dk = tensor.extract %d[%b, %ki] : tensor<?x?xi32>
      %same = arith.cmpi eq, %dq, %dk : i32
      attn.yield %same : i1
    }
  return %o, %l : !q, !lse
}

func.func @rare_keys(%q: !q, %k: !kv, %v: !kv, %flag: tensor<?x?xi32>)
    -> (!q, !lse) {
  %o, %l = attn.attention %q, %k, %v captures(%flag : tensor<?x?xi32>)
      : !q, !kv, !kv -> !q, !lse
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %f: tensor<?x?xi32>):
      %fk = tensor.extract %f[%b, %ki] : tensor<?x?xi32>
      %three = arith.constant 3 : i32
      %rare = arith.cmpi sge, %fk, %three : i32
      attn.yield %rare : i1
    }
  return %o, %l : !q, !lse
}

!t = tensor<1x2x?x32xf32>
!tl = tensor<1x2x?xf32>

func.func @bias_table(%q: !t, %k: !t, %v: !t, %bias: tensor<2x?x?xf32>)
    -> (!t, !tl) attributes {attn.backward} {
  %o, %l = attn.attention %q, %k, %v captures(%bias : tensor<2x?x?xf32>)
      {tiles = #attn.tiles<block_m = 16, block_n = 32>} : !t, !t, !t -> !t, !tl
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index,
         %table: tensor<2x?x?xf32>):
      %added = tensor.extract %table[%h, %qi, %ki] : tensor<2x?x?xf32>
      %r = arith.addf %s, %added : f32
      attn.yield %r : f32
    }
  return %o, %l : !t, !tl
}
