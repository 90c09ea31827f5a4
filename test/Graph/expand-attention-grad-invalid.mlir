// RUN: split-file %s %t
// RUN: attn-opt %t/underived.mlir -attn-expand-attention-grad -verify-diagnostics
// RUN: attn-opt %t/target.mlir -attn-expand-attention-grad='target=sm_100' -verify-diagnostics

//--- underived.mlir

// The kernels need the score region's derivative.
func.func @underived(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>) {
  // expected-error @below {{'attn.attention_grad' op has a score region without its derivative; run attn-differentiate-score first}}
  %dq, %dk, %dv = attn.attention_grad %q, %q, %q, %q, %l, %q
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      attn.yield %s : f32
    }
  return
}

//--- target.mlir
// The target decides the dq program: it must be one attnc knows.
// expected-error @below {{unknown target 'sm_100'; expected host or sm_90a}}
func.func @unknown_target() {
  return
}
