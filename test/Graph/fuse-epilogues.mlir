// RUN: attn-opt %s -split-input-file -attn-fuse-epilogues | FileCheck %s

// A residual add is the projection's addend; the bias stays. A norm
// gradient takes the residual stream's cotangent the same way.
// CHECK-LABEL: func.func @residual
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x8xbf16>, %[[W:[^:]+]]: tensor<8x8xbf16>, %[[B:[^:]+]]: tensor<8xbf16>)
// CHECK-NEXT: %[[H:.*]] = attn.matmul %[[X]], %[[W]], %[[B]] + %[[X]] {transpose_b} : tensor<?x8xbf16>, tensor<8x8xbf16>, tensor<8xbf16> + tensor<?x8xbf16> -> tensor<?x8xbf16>
// CHECK-NEXT: return %[[H]]
func.func @residual(%x: tensor<?x8xbf16>, %w: tensor<8x8xbf16>,
                    %b: tensor<8xbf16>) -> tensor<?x8xbf16> {
  %p = attn.matmul %x, %w, %b {transpose_b}
      : tensor<?x8xbf16>, tensor<8x8xbf16>, tensor<8xbf16> -> tensor<?x8xbf16>
  %h = attn.elementwise %x, %p : tensor<?x8xbf16>, tensor<?x8xbf16> -> tensor<?x8xbf16> {
  ^bb0(%a: f32, %c: f32):
    %s = arith.addf %a, %c : f32
    attn.yield %s : f32
  }
  return %h : tensor<?x8xbf16>
}

// -----

// Three gradients that meet, as attn-fuse-elementwise leaves them (the
// first partial sum rounded): the matmul at the root takes the partial sum,
// which then fuses into the second matmul, which takes the third.
// CHECK-LABEL: func.func @gradients_meet
// CHECK-SAME: (%[[DQ:[^:]+]]: tensor<?x8xbf16>, %[[DK:[^:]+]]: tensor<?x4xbf16>, %[[DV:[^:]+]]: tensor<?x4xbf16>, %[[WQ:[^:]+]]: tensor<8x8xbf16>, %[[WK:[^:]+]]: tensor<4x8xbf16>, %[[WV:[^:]+]]: tensor<4x8xbf16>)
// CHECK-NEXT: %[[V:.*]] = attn.matmul %[[DV]], %[[WV]] :
// CHECK-NEXT: %[[K:.*]] = attn.matmul %[[DK]], %[[WK]] + %[[V]] :
// CHECK-NEXT: %[[Q:.*]] = attn.matmul %[[DQ]], %[[WQ]] + %[[K]] :
// CHECK-NEXT: return %[[Q]]
func.func @gradients_meet(%dq: tensor<?x8xbf16>, %dk: tensor<?x4xbf16>,
                          %dv: tensor<?x4xbf16>, %wq: tensor<8x8xbf16>,
                          %wk: tensor<4x8xbf16>, %wv: tensor<4x8xbf16>)
    -> tensor<?x8xbf16> {
  %q = attn.matmul %dq, %wq : tensor<?x8xbf16>, tensor<8x8xbf16> -> tensor<?x8xbf16>
  %k = attn.matmul %dk, %wk : tensor<?x4xbf16>, tensor<4x8xbf16> -> tensor<?x8xbf16>
  %v = attn.matmul %dv, %wv : tensor<?x4xbf16>, tensor<4x8xbf16> -> tensor<?x8xbf16>
  %dx = attn.elementwise %q, %k, %v
      : tensor<?x8xbf16>, tensor<?x8xbf16>, tensor<?x8xbf16> -> tensor<?x8xbf16> {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %s = arith.addf %b, %c : f32
    %t = arith.truncf %s : f32 to bf16
    %e = arith.extf %t : bf16 to f32
    %r = arith.addf %e, %a : f32
    attn.yield %r : f32
  }
  return %dx : tensor<?x8xbf16>
}

// -----

// The rest of the sum has no matmul: it stays an attn.elementwise, rounded
// to the result's type, and is the addend.
// CHECK-LABEL: func.func @rest_of_sum
// CHECK: %[[REST:.*]] = attn.elementwise %{{.*}}, %{{.*}} : tensor<?x8xf32>, tensor<?x8xbf16> -> tensor<?x8xbf16> {
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT: attn.yield %[[S]] : f32
// CHECK: attn.matmul %{{.*}}, %{{.*}} + %[[REST]] :
// CHECK-NOT: attn.elementwise
func.func @rest_of_sum(%x: tensor<?x8xbf16>, %w: tensor<8x8xbf16>,
                       %r: tensor<?x8xf32>, %s: tensor<?x8xbf16>)
    -> tensor<?x8xbf16> {
  %p = attn.matmul %x, %w : tensor<?x8xbf16>, tensor<8x8xbf16> -> tensor<?x8xbf16>
  %h = attn.elementwise %p, %r, %s
      : tensor<?x8xbf16>, tensor<?x8xf32>, tensor<?x8xbf16> -> tensor<?x8xbf16> {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %t = arith.addf %b, %c : f32
    %u = arith.addf %a, %t : f32
    attn.yield %u : f32
  }
  return %h : tensor<?x8xbf16>
}

// -----

// What stays: a product that is also returned, one of another type than
// the sum, a body that is not a sum, and an input read twice.
// CHECK-LABEL: func.func @not_fused
// CHECK-COUNT-4: attn.elementwise
// CHECK-NOT: +
func.func @not_fused(%x: tensor<?x8xbf16>, %w: tensor<8x8xbf16>)
    -> (tensor<?x8xbf16>, tensor<?x8xbf16>, tensor<?x8xbf16>,
        tensor<?x8xbf16>, tensor<?x8xbf16>) {
  %kept = attn.matmul %x, %w : tensor<?x8xbf16>, tensor<8x8xbf16> -> tensor<?x8xbf16>
  %a = attn.elementwise %x, %kept : tensor<?x8xbf16>, tensor<?x8xbf16> -> tensor<?x8xbf16> {
  ^bb0(%i: f32, %j: f32):
    %s = arith.addf %i, %j : f32
    attn.yield %s : f32
  }
  %wide = attn.matmul %x, %w : tensor<?x8xbf16>, tensor<8x8xbf16> -> tensor<?x8xf32>
  %b = attn.elementwise %x, %wide : tensor<?x8xbf16>, tensor<?x8xf32> -> tensor<?x8xbf16> {
  ^bb0(%i: f32, %j: f32):
    %s = arith.addf %i, %j : f32
    attn.yield %s : f32
  }
  %scaled = attn.matmul %x, %w : tensor<?x8xbf16>, tensor<8x8xbf16> -> tensor<?x8xbf16>
  %c = attn.elementwise %x, %scaled : tensor<?x8xbf16>, tensor<?x8xbf16> -> tensor<?x8xbf16> {
  ^bb0(%i: f32, %j: f32):
    %s = arith.mulf %i, %j : f32
    attn.yield %s : f32
  }
  %twice = attn.matmul %x, %w : tensor<?x8xbf16>, tensor<8x8xbf16> -> tensor<?x8xbf16>
  %d = attn.elementwise %twice : tensor<?x8xbf16> -> tensor<?x8xbf16> {
  ^bb0(%i: f32):
    %s = arith.addf %i, %i : f32
    attn.yield %s : f32
  }
  return %kept, %a, %b, %c, %d
      : tensor<?x8xbf16>, tensor<?x8xbf16>, tensor<?x8xbf16>, tensor<?x8xbf16>, tensor<?x8xbf16>
}

// -----

// The residual stream's cotangent joins the norm's input gradient in its
// kernel. The partial sums are read before the sum, so the fused kernel
// goes where the gradient was; the cotangent is defined before it.
// CHECK-LABEL: func.func @norm_grad
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x8xbf16>, %[[W:[^:]+]]: tensor<8xbf16>, %[[R:[^:]+]]: tensor<?xf32>, %[[DY:[^:]+]]: tensor<?x8xbf16>, %[[DRES:[^:]+]]: tensor<?x8xbf16>)
// CHECK-NEXT: %[[DX:.*]], %[[DWP:.*]] = attn.rms_norm_grad %[[X]], %[[W]], %[[R]], %[[DY]] + %[[DRES]] :
// CHECK-NEXT: %[[DW:.*]] = attn.sum_rows %[[DWP]]
// CHECK-NEXT: return %[[DX]], %[[DW]]
func.func @norm_grad(%x: tensor<?x8xbf16>, %w: tensor<8xbf16>, %r: tensor<?xf32>,
                     %dy: tensor<?x8xbf16>, %dres: tensor<?x8xbf16>)
    -> (tensor<?x8xbf16>, tensor<8xbf16>) {
  %dx, %dwp = attn.rms_norm_grad %x, %w, %r, %dy
      : tensor<?x8xbf16>, tensor<8xbf16>, tensor<?xf32>, tensor<?x8xbf16>
      -> tensor<?x8xbf16>, tensor<4x8xf32>
  %dw = attn.sum_rows %dwp : tensor<4x8xf32> -> tensor<8xbf16>
  %sum = attn.elementwise %dres, %dx : tensor<?x8xbf16>, tensor<?x8xbf16> -> tensor<?x8xbf16> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    attn.yield %s : f32
  }
  return %sum, %dw : tensor<?x8xbf16>, tensor<8xbf16>
}

// -----

// The partial sums are read before the sum and the rest of the sum is
// defined after the gradient: neither place fits, nothing is fused.
// CHECK-LABEL: func.func @norm_grad_late_addend
// CHECK: attn.rms_norm_grad %{{[^+]*}} :
// CHECK: attn.elementwise
func.func @norm_grad_late_addend(%x: tensor<?x8xbf16>, %w: tensor<8xbf16>,
                                 %r: tensor<?xf32>, %dy: tensor<?x8xbf16>)
    -> (tensor<?x8xbf16>, tensor<8xbf16>) {
  %dx, %dwp = attn.rms_norm_grad %x, %w, %r, %dy
      : tensor<?x8xbf16>, tensor<8xbf16>, tensor<?xf32>, tensor<?x8xbf16>
      -> tensor<?x8xbf16>, tensor<4x8xf32>
  %dw = attn.sum_rows %dwp : tensor<4x8xf32> -> tensor<8xbf16>
  %late = attn.elementwise %dy : tensor<?x8xbf16> -> tensor<?x8xbf16> {
  ^bb0(%a: f32):
    %t = math.tanh %a : f32
    attn.yield %t : f32
  }
  %sum = attn.elementwise %late, %dx : tensor<?x8xbf16>, tensor<?x8xbf16> -> tensor<?x8xbf16> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    attn.yield %s : f32
  }
  return %sum, %dw : tensor<?x8xbf16>, tensor<8xbf16>
}
