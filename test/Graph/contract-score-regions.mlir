// RUN: attn-opt %s -split-input-file -attn-contract-score-regions | FileCheck %s

// ALiBi: the slope's product and the subtraction that reads it may fuse
// into one fma; the exponent's product too. Other ops (exp2, the
// conversion) and flags already there stay as they are.
// CHECK-LABEL: func.func @alibi
// CHECK:       score {
// CHECK:         arith.mulf %{{.+}}, %{{.+}} fastmath<nnan,contract> : f32
// CHECK-NEXT:    math.exp2 %{{.+}} : f32
// CHECK:         arith.sitofp %{{.+}} : i32 to f32
// CHECK-NEXT:    %[[BIAS:.+]] = arith.mulf %{{.+}}, %{{.+}} fastmath<contract> : f32
// CHECK-NEXT:    %[[R:.+]] = arith.subf %{{.+}}, %[[BIAS]] fastmath<contract> : f32
// CHECK-NEXT:    attn.yield %[[R]] : f32
func.func @alibi(%q: tensor<?x16x?x64xbf16>) -> tensor<?x16x?x64xbf16> {
  %o, %l = attn.attention %q, %q, %q {causal}
      : tensor<?x16x?x64xbf16>, tensor<?x16x?x64xbf16>, tensor<?x16x?x64xbf16>
      -> tensor<?x16x?x64xbf16>, tensor<?x16x?xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %half = arith.constant -0.5 : f32
      %h32 = arith.index_castui %h : index to i32
      %hf = arith.uitofp %h32 : i32 to f32
      %exponent = arith.mulf %hf, %half fastmath<nnan> : f32
      %slope = math.exp2 %exponent : f32
      %d = arith.subi %qi, %ki : index
      %d32 = arith.index_cast %d : index to i32
      %df = arith.sitofp %d32 : i32 to f32
      %bias = arith.mulf %slope, %df : f32
      %r = arith.subf %s, %bias : f32
      attn.yield %r : f32
    }
  return %o : tensor<?x16x?x64xbf16>
}

// -----

// A mask region keeps its arithmetic as written: a fused product could
// fall on the other side of the comparison.
// CHECK-LABEL: func.func @mask
// CHECK:       mask {
// CHECK:         %[[P:.+]] = arith.mulf %{{.+}}, %{{.+}} : f32
// CHECK-NEXT:    %[[T:.+]] = arith.addf %[[P]], %{{.+}} : f32
// CHECK-NEXT:    arith.cmpf olt, %[[T]], %{{.+}} : f32
func.func @mask(%q: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %o, %l = attn.attention %q, %q, %q
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %third = arith.constant 0.333333343 : f32
      %one = arith.constant 1.0 : f32
      %q32 = arith.index_castui %qi : index to i32
      %k32 = arith.index_castui %ki : index to i32
      %qf = arith.uitofp %q32 : i32 to f32
      %kf = arith.uitofp %k32 : i32 to f32
      %p = arith.mulf %qf, %third : f32
      %t = arith.addf %p, %one : f32
      %keep = arith.cmpf olt, %t, %kf : f32
      attn.yield %keep : i1
    }
  return %o : tensor<1x2x8x16xf32>
}

// -----

// Gradient ops: the score and score_grad regions both contract.
// CHECK-LABEL: func.func @gradient
// CHECK:       score {
// CHECK:         arith.subf %{{.+}}, %{{.+}} fastmath<contract> : f32
// CHECK:       score_grad {
// CHECK:         arith.addf %{{.+}}, %{{.+}} fastmath<contract> : f32
func.func @gradient(%q: tensor<?x2x?x16xf32>, %l: tensor<?x2x?xf32>) {
  %dq, %dk, %dv = attn.attention_grad %q, %q, %q, %q, %l, %q
      : tensor<?x2x?x16xf32>, tensor<?x2x?x16xf32>, tensor<?x2x?x16xf32>, tensor<?x2x?x16xf32>, tensor<?x2x?xf32>, tensor<?x2x?x16xf32>
      -> tensor<?x2x?x16xf32>, tensor<?x2x?x16xf32>, tensor<?x2x?x16xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %d = arith.subi %qi, %ki : index
      %d32 = arith.index_cast %d : index to i32
      %df = arith.sitofp %d32 : i32 to f32
      %r = arith.subf %s, %df : f32
      attn.yield %r : f32
    } score_grad {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %d = arith.subi %qi, %ki : index
      %d32 = arith.index_cast %d : index to i32
      %df = arith.sitofp %d32 : i32 to f32
      %one = arith.constant 1.0 : f32
      %r = arith.addf %one, %df : f32
      attn.yield %r : f32
    }
  return
}
