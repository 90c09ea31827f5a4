!t = tensor<1x2x?x64xf32>
!lse = tensor<1x2x?xf32>
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
