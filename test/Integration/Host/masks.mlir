// Masks on the host backend against the fp64 reference: no mask, the
// shorthands alone and combined, mask regions the classifier proves empty or
// full tiles for, and causal written as a region (checked against the
// shorthand's result through the same reference). Lengths are not tile
// multiples; the tile is pinned small so every shape crosses many tiles.
//
// RUN: attnc %s -o %t.attnpkg
// RUN: attn-run %t.attnpkg --fn none --shape Nq=300 --shape Nk=300 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn none --shape Nq=7 --shape Nk=1000 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn causal --shape Nq=1000 --shape Nk=1000 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn causal --shape Nq=1 --shape Nk=1 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn causal --shape Nq=7 --shape Nk=7 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn causal --shape Nq=100 --shape Nk=37 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn causal_bottom_right --shape Nq=1 --shape Nk=1000 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn causal_bottom_right --shape Nq=100 --shape Nk=333 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn causal_bottom_right --shape Nq=300 --shape Nk=77 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn causal_bottom_right --shape Nq=300 --shape Nk=300 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn window_causal_bottom_right --shape Nq=50 --shape Nk=333 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn window_both_bottom_right --shape Nq=300 --shape Nk=250 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn window_both_bottom_right --shape Nq=20 --shape Nk=250 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn window --shape Nq=300 --shape Nk=300 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn window_causal --shape Nq=300 --shape Nk=300 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn window_both --shape Nq=300 --shape Nk=250 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn prefix_lm --shape Nq=300 --shape Nk=300 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn document --shape Nq=300 --shape Nk=300 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn causal_region --shape Nq=300 --shape Nk=300 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn wrapping --shape Nq=300 --shape Nk=300 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn hashed --shape Nq=300 --shape Nk=300 --check | FileCheck %s

// CHECK: seed:
// CHECK: out: rel_err {{.*}} ok
// CHECK-NEXT: lse: rel_err {{.*}} ok

!t = tensor<1x2x?x64xf32>
!lse = tensor<1x2x?xf32>

func.func @none(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v {tiles = #attn.tiles<block_m = 16, block_n = 32>}
      : !t, !t, !t -> !t, !lse
  return %o, %l : !t, !lse
}

func.func @causal(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v {causal, tiles = #attn.tiles<block_m = 16, block_n = 32>}
      : !t, !t, !t -> !t, !lse
  return %o, %l : !t, !lse
}

// Aligned with the last key: decoding with a cache (Nq < Nk) and rows that
// see no key (Nq > Nk).
func.func @causal_bottom_right(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v {causal, bottom_right, tiles = #attn.tiles<block_m = 16, block_n = 32>}
      : !t, !t, !t -> !t, !lse
  return %o, %l : !t, !lse
}

func.func @window_causal_bottom_right(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v {causal, bottom_right, window_left = 40 : i64, tiles = #attn.tiles<block_m = 16, block_n = 32>}
      : !t, !t, !t -> !t, !lse
  return %o, %l : !t, !lse
}

func.func @window_both_bottom_right(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v {bottom_right, window_left = 50 : i64, window_right = 20 : i64, tiles = #attn.tiles<block_m = 16, block_n = 32>}
      : !t, !t, !t -> !t, !lse
  return %o, %l : !t, !lse
}

func.func @window(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v {window_left = 40 : i64, tiles = #attn.tiles<block_m = 16, block_n = 32>}
      : !t, !t, !t -> !t, !lse
  return %o, %l : !t, !lse
}

func.func @window_causal(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v {causal, window_left = 40 : i64, tiles = #attn.tiles<block_m = 16, block_n = 32>}
      : !t, !t, !t -> !t, !lse
  return %o, %l : !t, !lse
}

func.func @window_both(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v {window_left = 50 : i64, window_right = 20 : i64, tiles = #attn.tiles<block_m = 16, block_n = 32>}
      : !t, !t, !t -> !t, !lse
  return %o, %l : !t, !lse
}

func.func @prefix_lm(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v {tiles = #attn.tiles<block_m = 16, block_n = 32>}
      : !t, !t, !t -> !t, !lse
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %c50 = arith.constant 50 : index
      %prefix = arith.cmpi slt, %ki, %c50 : index
      %causal = arith.cmpi sle, %ki, %qi : index
      %ok = arith.ori %prefix, %causal : i1
      attn.yield %ok : i1
    }
  return %o, %l : !t, !lse
}

func.func @document(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v {causal, tiles = #attn.tiles<block_m = 16, block_n = 32>}
      : !t, !t, !t -> !t, !lse
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %c96 = arith.constant 96 : index
      %qd = arith.divui %qi, %c96 : index
      %kd = arith.divui %ki, %c96 : index
      %same = arith.cmpi eq, %qd, %kd : index
      attn.yield %same : i1
    }
  return %o, %l : !t, !lse
}

func.func @causal_region(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v {tiles = #attn.tiles<block_m = 16, block_n = 32>}
      : !t, !t, !t -> !t, !lse
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %c1 = arith.constant 1 : index
      %next = arith.addi %qi, %c1 : index
      %ok = arith.cmpi ult, %ki, %next : index
      attn.yield %ok : i1
    }
  return %o, %l : !t, !lse
}

// Index arithmetic that wraps: q_idx * 2^62 < 1 holds unless q_idx mod 4 is
// 1, so those rows see no key. Bounds computed from wrapped corner
// products would call every tile full; the classifier sees the overflow
// and leaves such tiles partial.
func.func @wrapping(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v {tiles = #attn.tiles<block_m = 16, block_n = 32>}
      : !t, !t, !t -> !t, !lse
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %m = arith.constant 4611686018427387904 : index
      %c1 = arith.constant 1 : index
      %x = arith.muli %qi, %m : index
      %ok = arith.cmpi slt, %x, %c1 : index
      attn.yield %ok : i1
    }
  return %o, %l : !t, !lse
}

// A hashed mask, wrapping on purpose: (q_idx * C + k_idx) mod 7 < 4.
func.func @hashed(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v {tiles = #attn.tiles<block_m = 16, block_n = 32>}
      : !t, !t, !t -> !t, !lse
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %m = arith.constant 6364136223846793005 : index
      %c7 = arith.constant 7 : index
      %c4 = arith.constant 4 : index
      %x = arith.muli %qi, %m : index
      %y = arith.addi %x, %ki : index
      %r = arith.remui %y, %c7 : index
      %ok = arith.cmpi ult, %r, %c4 : index
      attn.yield %ok : i1
    }
  return %o, %l : !t, !lse
}
