// Integer division in a mask region by a divisor that is not a constant:
// the kernels guard it so a zero divisor cannot trap (MLIR leaves it
// undefined; on the host it would kill the process). Where the divisor is
// never zero the results match the fp64 reference; where it is zero the
// reference reports the undefined behaviour and attn-run fails cleanly
// (`not` without --crash fails on a crash).
//
// RUN: attnc %s -o %t.attnpkg
// RUN: attn-run %t.attnpkg --fn by_row --shape Nq=300 --shape Nk=300 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn by_distance --shape Nq=100 --shape Nk=100 | FileCheck %s --check-prefix=RAN
// RUN: attn-run %t.attnpkg --fn signed_by_distance --shape Nq=100 --shape Nk=100 | FileCheck %s --check-prefix=RAN
// RUN: not attn-run %t.attnpkg --fn by_distance --shape Nq=100 --shape Nk=100 --check 2>&1 | FileCheck %s --check-prefix=UB
// RUN: not attn-run %t.attnpkg --fn signed_by_distance --shape Nq=100 --shape Nk=100 --check 2>&1 | FileCheck %s --check-prefix=UB

// CHECK: out: rel_err {{.*}} ok
// CHECK-NEXT: lse: rel_err {{.*}} ok

// RAN: distance: ran in
// UB: mask region at b=0 h=0 q_idx=0 k_idx=0: op {{[0-9]+}} ({{.*}}): division by zero

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
