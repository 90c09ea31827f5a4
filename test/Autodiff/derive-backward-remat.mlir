// RUN: attn-opt %s -attn-derive-backward='remat=none' | FileCheck %s --check-prefix=NONE
// RUN: attn-opt %s -attn-derive-backward | FileCheck %s --check-prefix=ATTENTION
// RUN: attn-opt %s -attn-derive-backward='remat=full' | FileCheck %s --check-prefix=FULL
// RUN: attn-opt %s -attn-derive-backward='remat=selective' | FileCheck %s --check-prefix=SELECTIVE
// RUN: not attn-opt %s -attn-derive-backward='remat=some' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: attn-opt %s -attn-derive-backward='remat=selective remat-budget=1100' | FileCheck %s --check-prefix=BUDGET
// RUN: attn-opt %s -attn-derive-backward='remat=selective remat-budget=200' | FileCheck %s --check-prefix=SMALL
// RUN: attn-opt %s -attn-derive-backward='remat=selective remat-budget=3000' | FileCheck %s --check-prefix=LARGE
// RUN: not attn-opt %s -attn-derive-backward='remat=attention remat-budget=1' 2>&1 | FileCheck %s --check-prefix=NOTSELECTIVE
// RUN: not attn-opt %s -attn-derive-backward='remat=selective remat-budget=1 symbols=B4' 2>&1 | FileCheck %s --check-prefix=MALFORMED

// The backward of this block needs t (attention's query), out and lse. The
// policy decides which it reads saved, as results of @block marked
// attn.saved and arguments of @block_bwd before the cotangent, and which it
// recomputes.

// NONE-LABEL: func.func @block(
// NONE-SAME: -> (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> {attn.saved}, tensor<1x2x8x16xf32> {attn.saved}, tensor<1x2x8xf32> {attn.saved})
// NONE: return %{{.*}}, %[[T:.*]], %[[O:.*]], %[[L:.*]] :
// NONE-LABEL: func.func @block_bwd(
// NONE-SAME: %[[X:[^:]+]]: tensor<1x2x8x16xf32>, %{{[^:]+}}: tensor<1x2x8x16xf32>, %{{[^:]+}}: tensor<1x2x8x16xf32>, %{{[^:]+}}: tensor<1x2x8x16xf32>, %[[ST:[^:]+]]: tensor<1x2x8x16xf32>, %[[SO:[^:]+]]: tensor<1x2x8x16xf32>, %[[SL:[^:]+]]: tensor<1x2x8xf32>, %[[DY:[^:]+]]: tensor<1x2x8x16xf32> {attn.cotangent_of_result = 0 : i64})
// NONE-NOT: attn.attention {{.*}}:
// NONE: attn.attention_grad %[[ST]], %{{.*}}, %{{.*}}, %[[SO]], %[[SL]], %[[DY]]

// ATTENTION-LABEL: func.func @block(
// ATTENTION-SAME: -> (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> {attn.saved}, tensor<1x2x8xf32> {attn.saved})
// ATTENTION-LABEL: func.func @block_bwd(
// ATTENTION-SAME: %[[X:[^:]+]]: tensor<1x2x8x16xf32>, %{{[^:]+}}: tensor<1x2x8x16xf32>, %{{[^:]+}}: tensor<1x2x8x16xf32>, %{{[^:]+}}: tensor<1x2x8x16xf32>, %[[SO:[^:]+]]: tensor<1x2x8x16xf32>, %[[SL:[^:]+]]: tensor<1x2x8xf32>, %[[DY:[^:]+]]: tensor<1x2x8x16xf32> {attn.cotangent_of_result = 0 : i64})
// ATTENTION: %[[T:.*]] = attn.elementwise %[[X]]
// ATTENTION-NOT: attn.attention {{.*}}:
// ATTENTION: attn.attention_grad %[[T]], %{{.*}}, %{{.*}}, %[[SO]], %[[SL]], %[[DY]]

// FULL-LABEL: func.func @block(
// FULL-SAME: -> tensor<1x2x8x16xf32>
// FULL-LABEL: func.func @block_bwd(
// FULL-SAME: %[[X:[^:]+]]: tensor<1x2x8x16xf32>, %{{[^:]+}}: tensor<1x2x8x16xf32>, %{{[^:]+}}: tensor<1x2x8x16xf32>, %{{[^:]+}}: tensor<1x2x8x16xf32>, %[[DY:[^:]+]]: tensor<1x2x8x16xf32> {attn.cotangent_of_result = 0 : i64})
// FULL: %[[T:.*]] = attn.elementwise %[[X]]
// FULL: %[[O:.*]], %[[L:.*]] = attn.attention %[[T]]
// FULL: attn.attention_grad %[[T]], %{{.*}}, %{{.*}}, %[[O]], %[[L]], %[[DY]]

// The selective policy saves a matmul's result and recomputes the
// element-wise code after it; the attention policy recomputes both.

// SELECTIVE-LABEL: func.func @mlp(
// SELECTIVE-SAME: -> (tensor<4x8xf32>, tensor<4x8xf32> {attn.saved})
// SELECTIVE: %[[H:.*]] = attn.matmul
// SELECTIVE: return %{{.*}}, %[[H]] :
// SELECTIVE-LABEL: func.func @mlp_bwd(
// SELECTIVE-SAME: %[[X:[^:]+]]: tensor<4x8xf32>, %[[W1:[^:]+]]: tensor<8x8xf32>, %[[W2:[^:]+]]: tensor<8x8xf32>, %{{[^:]+}}: tensor<4x8xf32>, %[[SH:[^:]+]]: tensor<4x8xf32>, %[[DY:[^:]+]]: tensor<4x8xf32> {attn.cotangent_of_result = 0 : i64})
// SELECTIVE-NOT: attn.matmul %[[X]], %[[W1]] :
// SELECTIVE: %[[T:.*]] = attn.elementwise %[[SH]]
// SELECTIVE: attn.matmul %[[T]], %[[DY]] {transpose_a}

// ATTENTION-LABEL: func.func @mlp(
// ATTENTION-SAME: -> tensor<4x8xf32>
// ATTENTION-LABEL: func.func @mlp_bwd(
// ATTENTION: %[[H:.*]] = attn.matmul %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
// ATTENTION: attn.elementwise %[[H]]

// UNKNOWN: error: unknown remat policy 'some' (expected none, attention, selective or full)

// Under a budget, the values the gradient reads are saved costliest to
// recompute first while they fit: attention's out and lse (1088 bytes) fit
// 1100, tanh's result t (1024) no longer does; in @mlp, 200 bytes hold the
// matmul's h (128), saved before tanh's output. 3000 bytes save everything
// the gradient reads, as `none` does.

// BUDGET-LABEL: func.func @block(
// BUDGET-SAME: -> (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> {attn.saved}, tensor<1x2x8xf32> {attn.saved})
// BUDGET-LABEL: func.func @block_bwd(
// BUDGET: attn.elementwise
// BUDGET-NOT: attn.attention {{.*}}:
// BUDGET: attn.attention_grad
// SMALL-LABEL: func.func @mlp(
// SMALL-SAME: -> (tensor<4x8xf32>, tensor<4x8xf32> {attn.saved})
// SMALL: %[[H:.*]] = attn.matmul
// SMALL: return %{{.*}}, %[[H]] :

// LARGE-LABEL: func.func @block(
// LARGE-SAME: -> (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> {attn.saved}, tensor<1x2x8x16xf32> {attn.saved}, tensor<1x2x8xf32> {attn.saved})
// LARGE-LABEL: func.func @mlp(
// LARGE-SAME: -> (tensor<4x8xf32>, tensor<4x8xf32> {attn.saved}, tensor<4x8xf32> {attn.saved})

// NOTSELECTIVE: error: a remat budget needs remat=selective
// MALFORMED: error: symbol extent 'B4' is not NAME=EXTENT

!t = tensor<1x2x8x16xf32>
func.func @block(%x: !t, %k: !t, %v: !t) -> !t attributes {attn.backward} {
  %t = attn.elementwise %x : !t -> !t {
  ^bb0(%a: f32):
    %h = math.tanh %a : f32
    attn.yield %h : f32
  }
  %o, %lse = attn.attention %t, %k, %v : !t, !t, !t -> !t, tensor<1x2x8xf32>
  %y = attn.elementwise %o, %x : !t, !t -> !t {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    attn.yield %s : f32
  }
  return %y : !t
}

!m = tensor<4x8xf32>
func.func @mlp(%x: !m, %w1: tensor<8x8xf32>, %w2: tensor<8x8xf32>) -> !m
    attributes {attn.backward} {
  %h = attn.matmul %x, %w1 : !m, tensor<8x8xf32> -> !m
  %t = attn.elementwise %h : !m -> !m {
  ^bb0(%a: f32):
    %r = math.tanh %a : f32
    attn.yield %r : f32
  }
  %y = attn.matmul %t, %w2 : !m, tensor<8x8xf32> -> !m
  return %y : !m
}

// Recomputation happens where the gradient needs it: under selective, the
// first sublayer's tanh(x) is recomputed only for dw1, after the second
// sublayer's gradient (dw2 = u^T dy), not at the start of the function.

// SELECTIVE-LABEL: func.func @two_sublayers_bwd(
// SELECTIVE-SAME: %[[X:[^:]+]]: tensor<4x8xf32>, %[[W1:[^:]+]]: tensor<8x8xf32>, %[[W2:[^:]+]]: tensor<8x8xf32>, %{{[^:]+}}: tensor<4x8xf32>, %[[A:[^:]+]]: tensor<4x8xf32>, %[[DY:[^:]+]]: tensor<4x8xf32> {attn.cotangent_of_result = 0 : i64})
// SELECTIVE: %[[H:.*]] = attn.elementwise %[[X]], %[[A]] {attn.recompute} :
// SELECTIVE: %[[U:.*]] = attn.elementwise %[[H]] {attn.recompute} :
// SELECTIVE: attn.matmul %[[U]], %[[DY]] {transpose_a}
// SELECTIVE: %[[T:.*]] = attn.elementwise %[[X]] {attn.recompute} :
// SELECTIVE: attn.matmul %[[T]], %{{.*}} {transpose_a}
func.func @two_sublayers(%x: !m, %w1: tensor<8x8xf32>, %w2: tensor<8x8xf32>)
    -> !m attributes {attn.backward} {
  %t = attn.elementwise %x : !m -> !m {
  ^bb0(%v: f32):
    %r = math.tanh %v : f32
    attn.yield %r : f32
  }
  %a = attn.matmul %t, %w1 : !m, tensor<8x8xf32> -> !m
  %h = attn.elementwise %x, %a : !m, !m -> !m {
  ^bb0(%p: f32, %q: f32):
    %s = arith.addf %p, %q : f32
    attn.yield %s : f32
  }
  %u = attn.elementwise %h : !m -> !m {
  ^bb0(%v: f32):
    %r = math.tanh %v : f32
    attn.yield %r : f32
  }
  %b = attn.matmul %u, %w2 : !m, tensor<8x8xf32> -> !m
  %y = attn.elementwise %h, %b : !m, !m -> !m {
  ^bb0(%p: f32, %q: f32):
    %s = arith.addf %p, %q : f32
    attn.yield %s : f32
  }
  return %y : !m
}
