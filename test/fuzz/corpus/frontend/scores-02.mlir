!t = tensor<1x4x?x64xf32>
!lse = tensor<1x4x?xf32>
func.func @softcap(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v {scale = 0.5 : f32} : !t, !t, !t -> !t, !lse
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %cap = arith.constant 5.0 : f32
      %x = arith.divf %s, %cap : f32
      %t = math.tanh %x : f32
      %r = arith.mulf %t, %cap : f32
      attn.yield %r : f32
    }
  return %o, %l : !t, !lse
}
