!t = tensor<1x2x?x64xf32>
!lse = tensor<1x2x?xf32>
func.func @window_both_bottom_right(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v {bottom_right, window_left = 50 : i64, window_right = 20 : i64, tiles = #attn.tiles<block_m = 16, block_n = 32>}
      : !t, !t, !t -> !t, !lse
  return %o, %l : !t, !lse
}
