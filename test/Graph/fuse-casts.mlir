// RUN: attn-opt %s -split-input-file -attn-fuse-casts | FileCheck %s

// A norm's f32 result read only by a cast to bf16 is rounded to bf16 by
// the norm itself.
// CHECK-LABEL: func.func @norm_then_cast
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x64xf32>, %[[G:[^:]+]]: tensor<64xf32>)
// CHECK-NEXT: %[[N:.*]], %{{.*}} = attn.rms_norm %[[X]], %[[G]] {epsilon = 9.99999974E-6 : f32} : tensor<?x64xf32>, tensor<64xf32> -> tensor<?x64xbf16>, tensor<?xf32>
// CHECK-NEXT: return %[[N]] : tensor<?x64xbf16>
func.func @norm_then_cast(%x: tensor<?x64xf32>, %g: tensor<64xf32>)
    -> tensor<?x64xbf16> {
  %n, %r = attn.rms_norm %x, %g {epsilon = 1.0e-05 : f32}
      : tensor<?x64xf32>, tensor<64xf32> -> tensor<?x64xf32>, tensor<?xf32>
  %nb = attn.cast %n : tensor<?x64xf32> to tensor<?x64xbf16>
  return %nb : tensor<?x64xbf16>
}

// -----

// The gradient's side: the bf16 cotangent widened to f32 is read by the
// norm gradient as it is; the widening cast that a matmul reads stays.
// CHECK-LABEL: func.func @widened_cotangent
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x64xf32>, %[[G:[^:]+]]: tensor<64xf32>, %[[R:[^:]+]]: tensor<?xf32>, %[[DN:[^:]+]]: tensor<?x64xbf16>, %[[W:[^:]+]]: tensor<64x64xf32>)
// CHECK-NEXT: %[[WIDE:.*]] = attn.cast %[[DN]] : tensor<?x64xbf16> to tensor<?x64xf32>
// CHECK-NEXT: %[[DX:.*]], %{{.*}} = attn.rms_norm_grad %[[X]], %[[G]], %[[R]], %[[DN]] : tensor<?x64xf32>, tensor<64xf32>, tensor<?xf32>, tensor<?x64xbf16> ->
// CHECK-NEXT: attn.matmul %[[WIDE]], %[[W]]
func.func @widened_cotangent(%x: tensor<?x64xf32>, %g: tensor<64xf32>,
                             %r: tensor<?xf32>, %dn: tensor<?x64xbf16>,
                             %w: tensor<64x64xf32>)
    -> (tensor<?x64xf32>, tensor<16x64xf32>, tensor<?x64xf32>) {
  %d = attn.cast %dn : tensor<?x64xbf16> to tensor<?x64xf32>
  %dx, %dg = attn.rms_norm_grad %x, %g, %r, %d
      : tensor<?x64xf32>, tensor<64xf32>, tensor<?xf32>, tensor<?x64xf32>
      -> tensor<?x64xf32>, tensor<16x64xf32>
  %p = attn.matmul %d, %w : tensor<?x64xf32>, tensor<64x64xf32> -> tensor<?x64xf32>
  return %dx, %dg, %p : tensor<?x64xf32>, tensor<16x64xf32>, tensor<?x64xf32>
}

// -----

// An elementwise result takes the cast's type the same way; an elementwise
// reader of a widened value reads the narrow one.
// CHECK-LABEL: func.func @elementwise
// CHECK-SAME: (%[[A:[^:]+]]: tensor<?x8xbf16>)
// CHECK-NEXT: %[[E:.*]] = attn.elementwise %[[A]] : tensor<?x8xbf16> -> tensor<?x8xf16>
// CHECK:      return %[[E]] : tensor<?x8xf16>
func.func @elementwise(%a: tensor<?x8xbf16>) -> tensor<?x8xf16> {
  %wide = attn.cast %a : tensor<?x8xbf16> to tensor<?x8xf32>
  %e = attn.elementwise %wide : tensor<?x8xf32> -> tensor<?x8xf32> {
  ^bb0(%v: f32):
    %t = math.tanh %v : f32
    attn.yield %t : f32
  }
  %h = attn.cast %e : tensor<?x8xf32> to tensor<?x8xf16>
  return %h : tensor<?x8xf16>
}

// -----

// What would change bits stays: a scaled cast, a cast of a bf16 result, a
// cast of a result that is also returned, and a norm gradient's dx tied to
// its addend.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-4: attn.cast
// CHECK-NOT:     attn.cast
func.func @kept(%x: tensor<?x64xf32>, %g: tensor<64xf32>, %xb: tensor<?x64xbf16>,
                %r: tensor<?xf32>, %dout: tensor<?x64xf32>)
    -> (tensor<?x64xbf16>, tensor<?x64xf32>, tensor<?x64xf32>,
        tensor<?x64xbf16>, tensor<?x64xbf16>, tensor<16x64xf32>) {
  %n, %r1 = attn.rms_norm %x, %g {epsilon = 1.0e-05 : f32}
      : tensor<?x64xf32>, tensor<64xf32> -> tensor<?x64xf32>, tensor<?xf32>
  %s = attn.cast %n {scale = 2.0 : f32} : tensor<?x64xf32> to tensor<?x64xbf16>
  %nb, %r2 = attn.rms_norm %xb, %g {epsilon = 1.0e-05 : f32}
      : tensor<?x64xbf16>, tensor<64xf32> -> tensor<?x64xbf16>, tensor<?xf32>
  %w = attn.cast %nb : tensor<?x64xbf16> to tensor<?x64xf32>
  %n3, %r3 = attn.rms_norm %x, %g {epsilon = 1.0e-06 : f32}
      : tensor<?x64xf32>, tensor<64xf32> -> tensor<?x64xf32>, tensor<?xf32>
  %c3 = attn.cast %n3 : tensor<?x64xf32> to tensor<?x64xbf16>
  %dx, %dg = attn.rms_norm_grad %x, %g, %r, %dout + %x
      : tensor<?x64xf32>, tensor<64xf32>, tensor<?xf32>, tensor<?x64xf32>
      + tensor<?x64xf32> -> tensor<?x64xf32>, tensor<16x64xf32>
  %c4 = attn.cast %dx : tensor<?x64xf32> to tensor<?x64xbf16>
  return %s, %w, %n3, %c3, %c4, %dg : tensor<?x64xbf16>, tensor<?x64xf32>,
      tensor<?x64xf32>, tensor<?x64xbf16>, tensor<?x64xbf16>, tensor<16x64xf32>
}
