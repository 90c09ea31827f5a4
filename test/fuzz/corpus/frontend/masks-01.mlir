!t = tensor<1x2x?x64xf32>
!lse = tensor<1x2x?xf32>
func.func @none(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v {tiles = #attn.tiles<block_m = 16, block_n = 32>}
      : !t, !t, !t -> !t, !lse
  return %o, %l : !t, !lse
}
