// Attention over a padded batch: keys from 200 on are padding that no query
// may see (a mask region, so their tiles are proven empty and skipped).
// check_masked_keys.py fills the padding with NaN, as uninitialized memory
// can be, and checks that it reaches no output.

!t64 = tensor<?x4x?x64xbf16>
!t128 = tensor<?x4x?x128xbf16>
!lse = tensor<?x4x?xf32>

func.func @padded_hd64(%q: !t64, %k: !t64, %v: !t64) -> (!t64, !lse) {
  %o, %l = attn.attention %q, %k, %v : !t64, !t64, !t64 -> !t64, !lse
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %valid = arith.constant 200 : index
      %ok = arith.cmpi ult, %ki, %valid : index
      attn.yield %ok : i1
    }
  return %o, %l : !t64, !lse
}

func.func @padded_hd128(%q: !t128, %k: !t128, %v: !t128) -> (!t128, !lse) {
  %o, %l = attn.attention %q, %k, %v : !t128, !t128, !t128 -> !t128, !lse
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %valid = arith.constant 200 : index
      %ok = arith.cmpi ult, %ki, %valid : index
      attn.yield %ok : i1
    }
  return %o, %l : !t128, !lse
}
