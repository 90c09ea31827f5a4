!t = tensor<1x2x?x64xf32>
!lse = tensor<1x2x?xf32>
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
