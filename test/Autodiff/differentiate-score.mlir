// RUN: attn-opt %s -split-input-file -attn-differentiate-score | FileCheck %s

// Softcap: d/ds [c tanh(s / c)] = (1 - tanh(s / c)^2) / c * c, built from
// region ops next to a copy of the score computation.

// CHECK-LABEL: func.func @softcap
// CHECK:       score_grad {
// CHECK-NEXT:  ^bb0(%[[S:.+]]: f32, %{{.+}}: index, %{{.+}}: index, %{{.+}}: index, %{{.+}}: index):
// CHECK:         %[[SEED:.+]] = arith.constant 1.000000e+00 : f32
// CHECK:         %[[C:.+]] = arith.constant 3.000000e+01 : f32
// CHECK:         %[[X:.+]] = arith.divf %[[S]], %[[C]] : f32
// CHECK:         %[[DX:.+]] = arith.divf %[[SEED]], %[[C]] : f32
// CHECK:         %[[T:.+]] = math.tanh %[[X]] : f32
// CHECK:         %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK:         %[[T2:.+]] = arith.mulf %[[T]], %[[T]] : f32
// CHECK:         %[[DT:.+]] = arith.subf %[[ONE]], %[[T2]] : f32
// CHECK:         %[[TT:.+]] = arith.mulf %[[DT]], %[[DX]] : f32
// CHECK:         %[[R:.+]] = arith.mulf %[[T]], %[[C]] : f32
// CHECK:         %[[DR:.+]] = arith.mulf %[[C]], %[[TT]] : f32
// CHECK:         attn.yield %[[DR]] : f32
func.func @softcap(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>) {
  %dq, %dk, %dv = attn.attention_grad %q, %q, %q, %q, %l, %q
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %c = arith.constant 30.0 : f32
      %x = arith.divf %s, %c : f32
      %t = math.tanh %x : f32
      %r = arith.mulf %t, %c : f32
      attn.yield %r : f32
    }
  return
}

// -----

// select passes the chosen operand's tangent; the index arithmetic of a
// bias carries none.

// CHECK-LABEL: func.func @bias_and_select
// CHECK:       score_grad {
// CHECK:         %[[POS:.+]] = arith.cmpf ogt
// CHECK:         %[[DNEG:.+]] = arith.negf %{{.+}} : f32
// CHECK:         arith.select %[[POS]], %{{.+}}, %[[DNEG]] : f32
// CHECK-NOT:     arith.sitofp {{.*}}arith.sitofp
// CHECK:         attn.yield
func.func @bias_and_select(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>) {
  %dq, %dk, %dv = attn.attention_grad %q, %q, %q, %q, %l, %q
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %zero = arith.constant 0.0 : f32
      %d = arith.subi %qi, %ki : index
      %di = arith.index_cast %d : index to i64
      %df = arith.sitofp %di : i64 to f32
      %biased = arith.subf %s, %df : f32
      %pos = arith.cmpf ogt, %biased, %zero : f32
      %neg = arith.negf %biased : f32
      %r = arith.select %pos, %biased, %neg : f32
      attn.yield %r : f32
    }
  return
}

// -----

// A quotient's tangent is 0 where its divisor is infinite: s / (1 +
// exp(-s)) at s < -88 in f32, where the rule alone gives inf / inf.

// CHECK-LABEL: func.func @silu_score
// CHECK:       score_grad {
// CHECK:         %[[DEN:.+]] = arith.addf %{{.+}}, %{{.+}} : f32
// CHECK:         %[[Q:.+]] = arith.divf %{{.+}}, %[[DEN]] : f32
// CHECK:         %[[RULE:.+]] = arith.divf %{{.+}}, %[[DEN]] : f32
// CHECK-NEXT:    %[[INF:.+]] = arith.constant 0x7F800000 : f32
// CHECK-NEXT:    %[[ABS:.+]] = math.absf %[[DEN]] : f32
// CHECK-NEXT:    %[[IS:.+]] = arith.cmpf oeq, %[[ABS]], %[[INF]] : f32
// CHECK-NEXT:    %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[DQ:.+]] = arith.select %[[IS]], %[[ZERO]], %[[RULE]] : f32
// CHECK:         attn.yield %[[DQ]] : f32
func.func @silu_score(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>) {
  %dq, %dk, %dv = attn.attention_grad %q, %q, %q, %q, %l, %q
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %one = arith.constant 1.0 : f32
      %ns = arith.negf %s : f32
      %e = math.exp %ns : f32
      %den = arith.addf %one, %e : f32
      %r = arith.divf %s, %den : f32
      attn.yield %r : f32
    }
  return
}

// -----

// A score that does not depend on s has derivative 0; an existing
// score_grad is kept.

// CHECK-LABEL: func.func @constant_score
// CHECK:       score_grad {
// CHECK:         %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    attn.yield %[[Z]] : f32
// CHECK-LABEL: func.func @given
// CHECK:       score_grad {
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    attn.yield %{{.+}} : f32
func.func @constant_score(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>) {
  %dq, %dk, %dv = attn.attention_grad %q, %q, %q, %q, %l, %q
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %c = arith.constant 2.0 : f32
      attn.yield %c : f32
    }
  return
}

func.func @given(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>) {
  %dq, %dk, %dv = attn.attention_grad %q, %q, %q, %q, %l, %q
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      attn.yield %s : f32
    } score_grad {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      attn.yield %s : f32
    }
  return
}
