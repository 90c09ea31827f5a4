// RUN: attn-opt %s -split-input-file -attn-fuse-activations | FileCheck %s

// GELU's tanh form of a linear layer's result alone goes into the layer;
// operands of commutative ops may come in either order.
// CHECK-LABEL: func.func @gelu
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x8xbf16>, %[[W:[^:]+]]: tensor<16x8xbf16>, %[[B:[^:]+]]: tensor<16xbf16>)
// CHECK-NEXT: %[[F:.*]] = attn.matmul %[[X]], %[[W]], %[[B]] {activation = "gelu_tanh", transpose_b} : tensor<?x8xbf16>, tensor<16x8xbf16>, tensor<16xbf16> -> tensor<?x16xbf16>
// CHECK-NEXT: return %[[F]]
func.func @gelu(%x: tensor<?x8xbf16>, %w: tensor<16x8xbf16>,
                %b: tensor<16xbf16>) -> tensor<?x16xbf16> {
  %f0 = attn.matmul %x, %w, %b {transpose_b}
      : tensor<?x8xbf16>, tensor<16x8xbf16>, tensor<16xbf16> -> tensor<?x16xbf16>
  %f = attn.elementwise %f0 : tensor<?x16xbf16> -> tensor<?x16xbf16> {
  ^bb0(%u: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %cubic = arith.constant 0.044715 : f32
    %scale = arith.constant 0.7978845608 : f32
    %u2 = arith.mulf %u, %u : f32
    %u3 = arith.mulf %u2, %u : f32
    %cu3 = arith.mulf %u3, %cubic : f32
    %inner = arith.addf %cu3, %u : f32
    %arg = arith.mulf %inner, %scale : f32
    %t = math.tanh %arg : f32
    %onet = arith.addf %t, %one : f32
    %hu = arith.mulf %half, %u : f32
    %gelu = arith.mulf %onet, %hu : f32
    attn.yield %gelu : f32
  }
  return %f : tensor<?x16xbf16>
}

// -----

// Not fused: a product read twice, another constant (GELU's erf form is
// not it), an intermediate rounding, and a product that has an addend.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-4: attn.elementwise
// CHECK-NOT:     activation
func.func @kept(%x: tensor<?x8xf32>, %w: tensor<16x8xf32>, %r: tensor<?x16xf32>)
    -> (tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>,
        tensor<?x16xf32>) {
  %p = attn.matmul %x, %w {transpose_b} : tensor<?x8xf32>, tensor<16x8xf32> -> tensor<?x16xf32>
  %a = attn.elementwise %p : tensor<?x16xf32> -> tensor<?x16xf32> {
  ^bb0(%u: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %cubic = arith.constant 0.044715 : f32
    %scale = arith.constant 0.7978845608 : f32
    %u3 = arith.mulf %u, %u : f32
    %u3b = arith.mulf %u3, %u : f32
    %cu3 = arith.mulf %cubic, %u3b : f32
    %inner = arith.addf %u, %cu3 : f32
    %arg = arith.mulf %scale, %inner : f32
    %t = math.tanh %arg : f32
    %onet = arith.addf %one, %t : f32
    %hu = arith.mulf %half, %u : f32
    %gelu = arith.mulf %hu, %onet : f32
    attn.yield %gelu : f32
  }
  %q = attn.matmul %x, %w {transpose_b} : tensor<?x8xf32>, tensor<16x8xf32> -> tensor<?x16xf32>
  %c = attn.elementwise %q : tensor<?x16xf32> -> tensor<?x16xf32> {
  ^bb0(%u: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %cubic = arith.constant 0.044715 : f32
    %scale = arith.constant 0.797 : f32
    %u3 = arith.mulf %u, %u : f32
    %u3b = arith.mulf %u3, %u : f32
    %cu3 = arith.mulf %cubic, %u3b : f32
    %inner = arith.addf %u, %cu3 : f32
    %arg = arith.mulf %scale, %inner : f32
    %t = math.tanh %arg : f32
    %onet = arith.addf %one, %t : f32
    %hu = arith.mulf %half, %u : f32
    %gelu = arith.mulf %hu, %onet : f32
    attn.yield %gelu : f32
  }
  %s = attn.matmul %x, %w {transpose_b} : tensor<?x8xf32>, tensor<16x8xf32> -> tensor<?x16xf32>
  %d = attn.elementwise %s : tensor<?x16xf32> -> tensor<?x16xf32> {
  ^bb0(%u: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %cubic = arith.constant 0.044715 : f32
    %scale = arith.constant 0.7978845608 : f32
    %u3 = arith.mulf %u, %u : f32
    %u3b = arith.mulf %u3, %u : f32
    %cu3 = arith.mulf %cubic, %u3b : f32
    %inner = arith.addf %u, %cu3 : f32
    %arg = arith.mulf %scale, %inner : f32
    %t = math.tanh %arg : f32
    %tr = arith.truncf %t : f32 to bf16
    %te = arith.extf %tr : bf16 to f32
    %onet = arith.addf %one, %te : f32
    %hu = arith.mulf %half, %u : f32
    %gelu = arith.mulf %hu, %onet : f32
    attn.yield %gelu : f32
  }
  %v = attn.matmul %x, %w + %r {transpose_b} : tensor<?x8xf32>, tensor<16x8xf32> + tensor<?x16xf32> -> tensor<?x16xf32>
  %e = attn.elementwise %v : tensor<?x16xf32> -> tensor<?x16xf32> {
  ^bb0(%u: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %cubic = arith.constant 0.044715 : f32
    %scale = arith.constant 0.7978845608 : f32
    %u3 = arith.mulf %u, %u : f32
    %u3b = arith.mulf %u3, %u : f32
    %cu3 = arith.mulf %cubic, %u3b : f32
    %inner = arith.addf %u, %cu3 : f32
    %arg = arith.mulf %scale, %inner : f32
    %t = math.tanh %arg : f32
    %onet = arith.addf %one, %t : f32
    %hu = arith.mulf %half, %u : f32
    %gelu = arith.mulf %hu, %onet : f32
    attn.yield %gelu : f32
  }
  return %p, %a, %c, %d, %e : tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>
}
