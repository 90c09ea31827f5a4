// RUN: attn-opt %s -split-input-file -attn-derive-backward | FileCheck %s
// RUN: attn-opt %s -split-input-file -attn-derive-backward="all-functions deterministic" | FileCheck %s --check-prefix=ALL

// One attention: @f_bwd takes (q, k, v, out, lse, dout) and returns the
// gradients of q, k, v from one attn.attention_grad with the forward's
// attributes and regions; the forward op is not recomputed.

// CHECK-LABEL: func.func @f(
// CHECK-NOT:     attn.backward
// CHECK-LABEL: func.func @f_bwd(
// CHECK-SAME:      %[[Q:[^:]+]]: tensor<?x4x?x64xbf16>, %[[K:[^:]+]]: tensor<?x2x?x64xbf16>, %[[V:[^:]+]]: tensor<?x2x?x32xbf16>,
// CHECK-SAME:      %[[O:[^:]+]]: tensor<?x4x?x32xbf16>, %[[L:[^:]+]]: tensor<?x4x?xf32>, %[[DO:[^:]+]]: tensor<?x4x?x32xbf16> {attn.cotangent_of_result = 0 : i64})
// CHECK-SAME:      -> (tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x32xbf16>)
// CHECK-SAME:      attributes {attn.gradient_of = @f}
// CHECK-NOT:     attn.attention %
// CHECK:         %[[DQ:.+]], %[[DK:.+]], %[[DV:.+]] = attn.attention_grad %[[Q]], %[[K]], %[[V]], %[[O]], %[[L]], %[[DO]] {causal, scale = 1.250000e-01 : f32, window_left = 8 : i64}
// CHECK:         mask
// CHECK:         arith.cmpi
// CHECK:         score
// CHECK:         math.tanh
// CHECK:         return %[[DQ]], %[[DK]], %[[DV]]

// ALL-LABEL: func.func @f_bwd(
// ALL:         attn.attention_grad {{.*}}deterministic
func.func @f(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x32xbf16>)
    -> (tensor<?x4x?x32xbf16>, tensor<?x4x?xf32>) attributes {attn.backward} {
  %out, %lse = attn.attention %q, %k, %v {causal, scale = 0.125 : f32, window_left = 8}
      : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x32xbf16>
      -> tensor<?x4x?x32xbf16>, tensor<?x4x?xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %c = arith.constant 3 : index
      %ok = arith.cmpi ne, %ki, %c : index
      attn.yield %ok : i1
    }
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %t = math.tanh %s : f32
      attn.yield %t : f32
    }
  return %out, %lse : tensor<?x4x?x32xbf16>, tensor<?x4x?xf32>
}

// -----

// Casts before attention: their gradient rule casts the cotangent back with
// the same scale. Unmarked functions are left alone unless all-functions.

// CHECK-LABEL: func.func @mixed(
// CHECK-LABEL: func.func @mixed_bwd(
// CHECK-SAME:      %[[Q:[^:]+]]: tensor<2x2x8x16xf32>, %[[K:[^:]+]]: tensor<2x2x8x16xf32>, %[[V:[^:]+]]: tensor<2x2x8x16xf32>,
// CHECK-SAME:      %[[O:[^:]+]]: tensor<2x2x8x16xbf16>, %[[L:[^:]+]]: tensor<2x2x8xf32>, %[[DO:[^:]+]]: tensor<2x2x8x16xbf16> {attn.cotangent_of_result = 0 : i64})
// CHECK-DAG:     %[[QB:.+]] = attn.cast %[[Q]] {attn.recompute, scale = 2.000000e+00 : f32} : tensor<2x2x8x16xf32> to tensor<2x2x8x16xbf16>
// CHECK-DAG:     %[[KB:.+]] = attn.cast %[[K]] {attn.recompute} : tensor<2x2x8x16xf32> to tensor<2x2x8x16xbf16>
// CHECK-DAG:     %[[VB:.+]] = attn.cast %[[V]] {attn.recompute} : tensor<2x2x8x16xf32> to tensor<2x2x8x16xbf16>
// CHECK:         %[[DQ:.+]], %[[DK:.+]], %[[DV:.+]] = attn.attention_grad %[[QB]], %[[KB]], %[[VB]], %[[O]], %[[L]], %[[DO]]
// CHECK-DAG:     %[[GQ:.+]] = attn.cast %[[DQ]] {scale = 2.000000e+00 : f32} : tensor<2x2x8x16xbf16> to tensor<2x2x8x16xf32>
// CHECK-DAG:     %[[GK:.+]] = attn.cast %[[DK]] : tensor<2x2x8x16xbf16> to tensor<2x2x8x16xf32>
// CHECK-DAG:     %[[GV:.+]] = attn.cast %[[DV]] : tensor<2x2x8x16xbf16> to tensor<2x2x8x16xf32>
// CHECK:         return %[[GQ]], %[[GK]], %[[GV]]
// CHECK-NOT:   func.func @plain_bwd

// ALL-LABEL: func.func @plain_bwd(
func.func @mixed(%q: tensor<2x2x8x16xf32>, %k: tensor<2x2x8x16xf32>, %v: tensor<2x2x8x16xf32>)
    -> (tensor<2x2x8x16xbf16>, tensor<2x2x8xf32>) attributes {attn.backward} {
  %qb = attn.cast %q {scale = 2.0 : f32} : tensor<2x2x8x16xf32> to tensor<2x2x8x16xbf16>
  %kb = attn.cast %k : tensor<2x2x8x16xf32> to tensor<2x2x8x16xbf16>
  %vb = attn.cast %v : tensor<2x2x8x16xf32> to tensor<2x2x8x16xbf16>
  %out, %lse = attn.attention %qb, %kb, %vb
      : tensor<2x2x8x16xbf16>, tensor<2x2x8x16xbf16>, tensor<2x2x8x16xbf16>
      -> tensor<2x2x8x16xbf16>, tensor<2x2x8xf32>
  return %out, %lse : tensor<2x2x8x16xbf16>, tensor<2x2x8xf32>
}

func.func @plain(%q: tensor<2x2x8x16xf32>, %k: tensor<2x2x8x16xf32>, %v: tensor<2x2x8x16xf32>)
    -> (tensor<2x2x8x16xf32>, tensor<2x2x8xf32>) {
  %out, %lse = attn.attention %q, %k, %v
      : tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>
      -> tensor<2x2x8x16xf32>, tensor<2x2x8xf32>
  return %out, %lse : tensor<2x2x8x16xf32>, tensor<2x2x8xf32>
}

// -----

// Self-attention on one tensor: its three cotangents are summed.
// CHECK-LABEL: func.func @shared_operand_bwd
// CHECK-SAME: (%[[X:[^:]+]]: tensor<1x2x8x16xf32>,
// CHECK: %[[DQ:.*]], %[[DK:.*]], %[[DV:.*]] = attn.attention_grad %[[X]], %[[X]], %[[X]],
// CHECK: %[[S1:.*]] = attn.elementwise %[[DQ]], %[[DK]]
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT: attn.yield %[[SUM]] : f32
// CHECK: %[[S2:.*]] = attn.elementwise %[[S1]], %[[DV]]
// CHECK: return %[[S2]]
func.func @shared_operand(%x: tensor<1x2x8x16xf32>) -> (tensor<1x2x8x16xf32>, tensor<1x2x8xf32>)
    attributes {attn.backward} {
  %out, %lse = attn.attention %x, %x, %x
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8xf32>
  return %out, %lse : tensor<1x2x8x16xf32>, tensor<1x2x8xf32>
}

// -----

// The gradients of an elementwise op's inputs are one elementwise op: per
// input, its body's derivative in that input (seeded with 1) times the
// cotangent. Inputs the derivatives do not read are dropped (z), and a
// derivative of 1 passes the cotangent on as it is, without a kernel (dz).
// CHECK-LABEL: func.func @product_bwd
// CHECK-SAME: (%[[X:[^:]+]]: tensor<8xf32>, %[[Y:[^:]+]]: tensor<8xbf16>, %[[Z:[^:]+]]: tensor<8xf32>, %[[OUT:[^:]+]]: tensor<8xf32>, %[[DOUT:[^:]+]]: tensor<8xf32> {attn.cotangent_of_result = 0 : i64})
// CHECK: %[[G:.*]]:2 = attn.elementwise %[[X]], %[[Y]], %[[DOUT]] : tensor<8xf32>, tensor<8xbf16>, tensor<8xf32> -> tensor<8xf32>, tensor<8xbf16> {
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[D:.*]]: f32):
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[DA:.*]] = arith.mulf %[[B]], %[[ONE]] : f32
// CHECK-NEXT: %[[GA:.*]] = arith.mulf %[[DA]], %[[D]] : f32
// CHECK-NEXT: %[[DB:.*]] = arith.mulf %[[A]], %[[ONE]] : f32
// CHECK-NEXT: %[[GB:.*]] = arith.mulf %[[DB]], %[[D]] : f32
// CHECK-NEXT: attn.yield %[[GA]], %[[GB]] : f32, f32
// CHECK: return %[[G]]#0, %[[G]]#1, %[[DOUT]]
func.func @product(%x: tensor<8xf32>, %y: tensor<8xbf16>, %z: tensor<8xf32>) -> tensor<8xf32>
    attributes {attn.backward} {
  %p = attn.elementwise %x, %y, %z : tensor<8xf32>, tensor<8xbf16>, tensor<8xf32> -> tensor<8xf32> {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %m, %c : f32
    attn.yield %s : f32
  }
  return %p : tensor<8xf32>
}

// -----

// The gradient of a linear layer is two matmuls in the operands' types:
// dx = dy w (w is [N, K]) and dw = dy^T x, a contraction of the rows.
// CHECK-LABEL: func.func @linear_bwd
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x16xbf16>, %[[W:[^:]+]]: tensor<24x16xbf16>, %{{[^:]+}}: tensor<?x24xbf16>, %[[DY:[^:]+]]: tensor<?x24xbf16> {attn.cotangent_of_result = 0 : i64})
// CHECK: %[[DX:.*]] = attn.matmul %[[DY]], %[[W]] : tensor<?x24xbf16>, tensor<24x16xbf16> -> tensor<?x16xbf16>
// CHECK: %[[DW:.*]] = attn.matmul %[[DY]], %[[X]] {transpose_a} : tensor<?x24xbf16>, tensor<?x16xbf16> -> tensor<24x16xbf16>
// CHECK: return %[[DX]], %[[DW]]
func.func @linear(%x: tensor<?x16xbf16>, %w: tensor<24x16xbf16>) -> tensor<?x24xbf16>
    attributes {attn.backward} {
  %y = attn.matmul %x, %w {transpose_b}
      : tensor<?x16xbf16>, tensor<24x16xbf16> -> tensor<?x24xbf16>
  return %y : tensor<?x24xbf16>
}

// -----

// A weight [K, N]: dx = dy w^T, dw = x^T dy. A row contraction's operands
// get matmuls against its cotangent.
// CHECK-LABEL: func.func @weight_kn_bwd
// CHECK-SAME: (%[[X:[^:]+]]: tensor<4x8xf32>, %[[W:[^:]+]]: tensor<8x2xf32>, %[[R:[^:]+]]: tensor<4x3xf32>, %{{[^:]+}}: tensor<2x3xf32>, %[[DC:[^:]+]]: tensor<2x3xf32> {attn.cotangent_of_result = 0 : i64})
// CHECK: %[[Y:.*]] = attn.matmul %[[X]], %[[W]] {attn.recompute} : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
// CHECK: %[[DR:.*]] = attn.matmul %[[Y]], %[[DC]] : tensor<4x2xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
// CHECK: %[[DY:.*]] = attn.matmul %[[R]], %[[DC]] {transpose_b} : tensor<4x3xf32>, tensor<2x3xf32> -> tensor<4x2xf32>
// CHECK: %[[DX:.*]] = attn.matmul %[[DY]], %[[W]] {transpose_b} : tensor<4x2xf32>, tensor<8x2xf32> -> tensor<4x8xf32>
// CHECK: %[[DW:.*]] = attn.matmul %[[X]], %[[DY]] {transpose_a} : tensor<4x8xf32>, tensor<4x2xf32> -> tensor<8x2xf32>
// CHECK: return %[[DX]], %[[DW]], %[[DR]]
func.func @weight_kn(%x: tensor<4x8xf32>, %w: tensor<8x2xf32>, %r: tensor<4x3xf32>)
    -> tensor<2x3xf32> attributes {attn.backward} {
  %y = attn.matmul %x, %w : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
  %c = attn.matmul %y, %r {transpose_a} : tensor<4x2xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  return %c : tensor<2x3xf32>
}

// -----

// RMSNorm's gradient reads the forward's rstd, which the backward
// recomputes under the default policy: one kernel gives dx and the
// weight's partial sums, a row sum finishes the weight's gradient in its
// type. rstd takes no cotangent.
// CHECK-LABEL: func.func @rms_norm_bwd
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x16xbf16>, %[[W:[^:]+]]: tensor<16xf32>, %{{[^:]+}}: tensor<?x16xbf16>, %[[DY:[^:]+]]: tensor<?x16xbf16> {attn.cotangent_of_result = 0 : i64})
// CHECK: %{{.*}}, %[[RSTD:.*]] = attn.rms_norm %[[X]], %[[W]]
// CHECK: %[[DX:.*]], %[[DWP:.*]] = attn.rms_norm_grad %[[X]], %[[W]], %[[RSTD]], %[[DY]] : tensor<?x16xbf16>, tensor<16xf32>, tensor<?xf32>, tensor<?x16xbf16> -> tensor<?x16xbf16>, tensor<4096x16xf32>
// CHECK: %[[DW:.*]] = attn.sum_rows %[[DWP]] : tensor<4096x16xf32> -> tensor<16xf32>
// CHECK: return %[[DX]], %[[DW]]
func.func @rms_norm(%x: tensor<?x16xbf16>, %w: tensor<16xf32>) -> tensor<?x16xbf16>
    attributes {attn.backward} {
  %y, %rstd = attn.rms_norm %x, %w {epsilon = 1.0e-06 : f32}
      : tensor<?x16xbf16>, tensor<16xf32> -> tensor<?x16xbf16>, tensor<?xf32>
  return %y : tensor<?x16xbf16>
}

// -----

// A linear layer's bias gets the row sum of its cotangent.
// CHECK-LABEL: func.func @linear_bias_bwd
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x16xbf16>, %[[W:[^:]+]]: tensor<24x16xbf16>, %{{[^:]+}}: tensor<24xbf16>, %{{[^:]+}}: tensor<?x24xbf16>, %[[DY:[^:]+]]: tensor<?x24xbf16> {attn.cotangent_of_result = 0 : i64})
// CHECK: %[[DX:.*]] = attn.matmul %[[DY]], %[[W]] : tensor<?x24xbf16>, tensor<24x16xbf16> -> tensor<?x16xbf16>
// CHECK: %[[DW:.*]] = attn.matmul %[[DY]], %[[X]] {transpose_a} : tensor<?x24xbf16>, tensor<?x16xbf16> -> tensor<24x16xbf16>
// CHECK: %[[DB:.*]] = attn.sum_rows %[[DY]] : tensor<?x24xbf16> -> tensor<24xbf16>
// CHECK: return %[[DX]], %[[DW]], %[[DB]]
func.func @linear_bias(%x: tensor<?x16xbf16>, %w: tensor<24x16xbf16>, %b: tensor<24xbf16>)
    -> tensor<?x24xbf16> attributes {attn.backward} {
  %y = attn.matmul %x, %w, %b {transpose_b}
      : tensor<?x16xbf16>, tensor<24x16xbf16>, tensor<24xbf16> -> tensor<?x24xbf16>
  return %y : tensor<?x24xbf16>
}

// -----

// LayerNorm's gradient kernel recomputes the row's mean; its bias's
// gradient is the row sum of the cotangent.
// CHECK-LABEL: func.func @layer_norm_bwd
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x16xbf16>, %[[W:[^:]+]]: tensor<16xf32>, %[[B:[^:]+]]: tensor<16xf32>, %{{[^:]+}}: tensor<?x16xbf16>, %[[DY:[^:]+]]: tensor<?x16xbf16> {attn.cotangent_of_result = 0 : i64})
// CHECK: %{{.*}}, %[[RSTD:.*]] = attn.layer_norm %[[X]], %[[W]], %[[B]]
// CHECK: %[[DX:.*]], %[[DWP:.*]] = attn.layer_norm_grad %[[X]], %[[W]], %[[RSTD]], %[[DY]] : tensor<?x16xbf16>, tensor<16xf32>, tensor<?xf32>, tensor<?x16xbf16> -> tensor<?x16xbf16>, tensor<4096x16xf32>
// CHECK: %[[DW:.*]] = attn.sum_rows %[[DWP]] : tensor<4096x16xf32> -> tensor<16xf32>
// CHECK: %[[DB:.*]] = attn.sum_rows %[[DY]] : tensor<?x16xbf16> -> tensor<16xf32>
// CHECK: return %[[DX]], %[[DW]], %[[DB]]
func.func @layer_norm(%x: tensor<?x16xbf16>, %w: tensor<16xf32>, %b: tensor<16xf32>)
    -> tensor<?x16xbf16> attributes {attn.backward} {
  %y, %rstd = attn.layer_norm %x, %w, %b {epsilon = 1.0e-05 : f32}
      : tensor<?x16xbf16>, tensor<16xf32>, tensor<16xf32> -> tensor<?x16xbf16>, tensor<?xf32>
  return %y : tensor<?x16xbf16>
}

// -----

// A tied LM head and its loss: the mean's gradient spreads dloss over the
// counted tokens, cross-entropy's kernel turns it into dlogits, and the
// labels take none. The logits are recomputed just before that kernel.
// CHECK-LABEL: func.func @lm_loss_bwd
// CHECK-SAME: (%[[H:[^:]+]]: tensor<?x16xbf16>, %[[E:[^:]+]]: tensor<40x16xbf16>, %[[Y:[^:]+]]: tensor<?xi32>, %{{[^:]+}}: tensor<f32>, %[[DL:[^:]+]]: tensor<f32> {attn.cotangent_of_result = 0 : i64})
// CHECK: %[[DLOSSES:.*]] = attn.token_mean_grad %[[Y]], %[[DL]] {ignore_index = 0 : i64} : tensor<?xi32>, tensor<f32> -> tensor<?xf32>
// CHECK: %[[LOGITS:.*]] = attn.matmul %[[H]], %[[E]] {attn.recompute, transpose_b}
// CHECK: %{{.*}}, %[[LSE:.*]] = attn.cross_entropy %[[LOGITS]], %[[Y]] {attn.recompute, ignore_index = 0 : i64}
// CHECK: %[[DLOGITS:.*]] = attn.cross_entropy_grad %[[LOGITS]], %[[Y]], %[[LSE]], %[[DLOSSES]] {ignore_index = 0 : i64}
// CHECK: %[[DH:.*]] = attn.matmul %[[DLOGITS]], %[[E]] :
// CHECK: %[[DE:.*]] = attn.matmul %[[DLOGITS]], %[[H]] {transpose_a}
// CHECK: return %[[DH]], %[[DE]] :
func.func @lm_loss(%h: tensor<?x16xbf16>, %e: tensor<40x16xbf16>, %y: tensor<?xi32>)
    -> tensor<f32> attributes {attn.backward} {
  %logits = attn.matmul %h, %e {transpose_b}
      : tensor<?x16xbf16>, tensor<40x16xbf16> -> tensor<?x40xbf16>
  %losses, %lse = attn.cross_entropy %logits, %y {ignore_index = 0 : i64}
      : tensor<?x40xbf16>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  %loss = attn.token_mean %losses, %y {ignore_index = 0 : i64}
      : tensor<?xf32>, tensor<?xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// The fused LM-head loss brings its own rule: one gradient op of h and the
// table, reading the lse the forward saves (the default policy saves it as
// it saves attention's: recomputing it is a pass over every class).
// CHECK-LABEL: func.func @fused_lm_loss(
// CHECK-SAME:    -> (tensor<f32>, tensor<?xf32> {attn.saved})
// CHECK:         %[[LOSSES:.*]], %[[LSE:.*]] = attn.linear_cross_entropy
// CHECK:         return %{{.*}}, %[[LSE]]
// CHECK-LABEL: func.func @fused_lm_loss_bwd
// CHECK-SAME: (%[[H:[^:]+]]: tensor<?x16xbf16>, %[[E:[^:]+]]: tensor<40x16xbf16>, %[[Y:[^:]+]]: tensor<?xi32>, %{{[^:]+}}: tensor<f32>, %[[SAVED:[^:]+]]: tensor<?xf32>, %[[DL:[^:]+]]: tensor<f32> {attn.cotangent_of_result = 0 : i64})
// CHECK: %[[DLOSSES:.*]] = attn.token_mean_grad %[[Y]], %[[DL]]
// CHECK-NOT: attn.linear_cross_entropy %
// CHECK: %[[DH:.*]], %[[DE:.*]] = attn.linear_cross_entropy_grad %[[H]], %[[E]], %[[Y]], %[[SAVED]], %[[DLOSSES]] {ignore_index = 0 : i64}
// CHECK: return %[[DH]], %[[DE]] :
func.func @fused_lm_loss(%h: tensor<?x16xbf16>, %e: tensor<40x16xbf16>, %y: tensor<?xi32>)
    -> tensor<f32> attributes {attn.backward} {
  %losses, %lse = attn.linear_cross_entropy %h, %e, %y {ignore_index = 0 : i64}
      : tensor<?x16xbf16>, tensor<40x16xbf16>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  %loss = attn.token_mean %losses, %y {ignore_index = 0 : i64}
      : tensor<?xf32>, tensor<?xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// An embedding's table gets its rows' cotangents summed per id in f32,
// cast to the table's type; the ids take no gradient.
// CHECK-LABEL: func.func @embed_bwd
// CHECK-SAME: (%[[T:[^:]+]]: tensor<40x16xbf16>, %[[I:[^:]+]]: tensor<?xi32>, %{{[^:]+}}: tensor<?x16xbf16>, %[[DX:[^:]+]]: tensor<?x16xbf16> {attn.cotangent_of_result = 0 : i64}) -> (tensor<40x16xbf16> {attn.gradient_of_argument = 0 : i64})
// CHECK: %[[O:.*]], %[[B:.*]] = attn.token_order %[[I]] : tensor<?xi32> -> tensor<?xi32>, tensor<41xi32>
// CHECK: %[[G:.*]] = attn.embedding_grad %[[O]], %[[B]], %[[DX]] : tensor<?xi32>, tensor<41xi32>, tensor<?x16xbf16> -> tensor<40x16xf32>
// CHECK: %[[DT:.*]] = attn.cast %[[G]] : tensor<40x16xf32> to tensor<40x16xbf16>
// CHECK: return %[[DT]]
func.func @embed(%t: tensor<40x16xbf16>, %i: tensor<?xi32>) -> tensor<?x16xbf16>
    attributes {attn.backward} {
  %x = attn.embedding %t, %i : tensor<40x16xbf16>, tensor<?xi32> -> tensor<?x16xbf16>
  return %x : tensor<?x16xbf16>
}

// -----

// split_heads and merge_heads are each other's gradients, with the same
// rotary tables, which take no gradient: the backward returns only dx.
// CHECK-LABEL: func.func @heads_bwd
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x?x32xf32>, %[[COS:[^:]+]]: tensor<?x4xf32>, %[[SIN:[^:]+]]: tensor<?x4xf32>, %{{[^:]+}}: tensor<?x?x32xf32>, %[[DY:[^:]+]]: tensor<?x?x32xf32> {attn.cotangent_of_result = 0 : i64}) -> (tensor<?x?x32xf32> {attn.gradient_of_argument = 0 : i64})
// CHECK: %[[DH:.*]] = attn.split_heads %[[DY]] : tensor<?x?x32xf32> -> tensor<?x2x?x16xf32>
// CHECK: %[[DX:.*]] = attn.merge_heads %[[DH]], %[[COS]], %[[SIN]] : tensor<?x2x?x16xf32>, tensor<?x4xf32>, tensor<?x4xf32> -> tensor<?x?x32xf32>
// CHECK: return %[[DX]]
func.func @heads(%x: tensor<?x?x32xf32>, %cos: tensor<?x4xf32>, %sin: tensor<?x4xf32>)
    -> tensor<?x?x32xf32> attributes {attn.backward} {
  %h = attn.split_heads %x, %cos, %sin
      : tensor<?x?x32xf32>, tensor<?x4xf32>, tensor<?x4xf32> -> tensor<?x2x?x16xf32>
  %y = attn.merge_heads %h : tensor<?x2x?x16xf32> -> tensor<?x?x32xf32>
  return %y : tensor<?x?x32xf32>
}
