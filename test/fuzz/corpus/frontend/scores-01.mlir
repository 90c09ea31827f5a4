!t = tensor<1x4x?x64xf32>
!lse = tensor<1x4x?xf32>
func.func @alibi(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v {causal} : !t, !t, !t -> !t, !lse
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %one = arith.constant 1 : index
      %h1 = arith.addi %h, %one : index
      %h1i = arith.index_cast %h1 : index to i64
      %h1f = arith.sitofp %h1i : i64 to f32
      %neg = arith.negf %h1f : f32
      %slope = math.exp2 %neg : f32
      %d = arith.subi %qi, %ki : index
      %di = arith.index_cast %d : index to i64
      %df = arith.sitofp %di : i64 to f32
      %bias = arith.mulf %slope, %df : f32
      %r = arith.subf %s, %bias : f32
      attn.yield %r : f32
    }
  return %o, %l : !t, !lse
}
