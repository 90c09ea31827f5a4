!t = tensor<1x2x?x64xf32>
!lse = tensor<1x2x?xf32>
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
