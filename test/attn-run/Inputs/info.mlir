// The package of info.test.
!q = tensor<?x8x1x64xf32>
!kv = tensor<?x2x?x64xf32>
func.func @decode(%q: !q, %k: !kv, %v: !kv) -> (!q, tensor<?x8x1xf32>) {
  %o, %l = attn.attention %q, %k, %v {causal, bottom_right, window_left = 100}
      : !q, !kv, !kv -> !q, tensor<?x8x1xf32>
  return %o, %l : !q, tensor<?x8x1xf32>
}
