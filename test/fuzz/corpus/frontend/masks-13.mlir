!t = tensor<1x2x?x64xf32>
!lse = tensor<1x2x?xf32>
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
