// Integer division in a mask region by a divisor that is not a constant.
// MLIR leaves a zero divisor undefined (on the host it would kill the
// process); attnc divides by 1 instead (x / 0 = x, x % 0 = 0), in the
// kernels and in the fp64 reference alike, so the divisions by zero on the
// diagonal of by_distance and signed_by_distance give the reference's
// results too.
//
// RUN: attnc %s -o %t.attnpkg
// RUN: attn-run %t.attnpkg --fn by_row --shape Nq=300 --shape Nk=300 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn by_distance --shape Nq=100 --shape Nk=100 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn signed_by_distance --shape Nq=100 --shape Nk=100 --check | FileCheck %s

// CHECK: out: rel_err {{.*}} ok
// CHECK-NEXT: lse: rel_err {{.*}} ok

!t = tensor<1x2x?x64xf32>
!lse = tensor<1x2x?xf32>

// Key blocks that grow with the row: k_idx / (q_idx + 1) < 2.
func.func @by_row(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v {tiles = #attn.tiles<block_m = 16, block_n = 32>}
      : !t, !t, !t -> !t, !lse
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %d = arith.addi %qi, %c1 : index
      %r = arith.divui %ki, %d : index
      %ok = arith.cmpi ult, %r, %c2 : index
      attn.yield %ok : i1
    }
  return %o, %l : !t, !lse
}

// k_idx / (q_idx - k_idx): zero on the diagonal.
func.func @by_distance(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v {tiles = #attn.tiles<block_m = 16, block_n = 32>}
      : !t, !t, !t -> !t, !lse
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %c2 = arith.constant 2 : index
      %d = arith.subi %qi, %ki : index
      %r = arith.remui %ki, %d : index
      %ok = arith.cmpi ult, %r, %c2 : index
      attn.yield %ok : i1
    }
  return %o, %l : !t, !lse
}

func.func @signed_by_distance(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v {tiles = #attn.tiles<block_m = 16, block_n = 32>}
      : !t, !t, !t -> !t, !lse
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %c2 = arith.constant 2 : index
      %d = arith.subi %qi, %ki : index
      %r = arith.floordivsi %ki, %d : index
      %ok = arith.cmpi slt, %r, %c2 : index
      attn.yield %ok : i1
    }
  return %o, %l : !t, !lse
}
