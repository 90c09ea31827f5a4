// RUN: attn-opt %s -split-input-file -attn-differentiate-score -verify-diagnostics

// floor of the score is piecewise constant: no gradient flows through it.
func.func @floor(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>) {
  %dq, %dk, %dv = attn.attention_grad %q, %q, %q, %q, %l, %q
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      // expected-error @below {{'math.floor' op is piecewise constant in the score, so the gradient through it is not defined}}
      %f = math.floor %s : f32
      attn.yield %f : f32
    }
  return
}

// -----

// So is a float-to-int conversion of it, even when only a comparison
// reads the result.
func.func @fptosi(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>) {
  %dq, %dk, %dv = attn.attention_grad %q, %q, %q, %q, %l, %q
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      // expected-error @below {{'arith.fptosi' op is piecewise constant in the score}}
      %i = arith.fptosi %s : f32 to i32
      %z = arith.constant 0 : i32
      %pos = arith.cmpi sgt, %i, %z : i32
      %n = arith.negf %s : f32
      %r = arith.select %pos, %s, %n : f32
      attn.yield %r : f32
    }
  return
}
