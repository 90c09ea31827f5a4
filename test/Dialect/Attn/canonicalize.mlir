// RUN: attn-opt %s -canonicalize -split-input-file | FileCheck %s

// Canonicalization patterns of attn.attention (RemoveTrueMask,
// RemoveIdentityScore, MaskTermsToShorthands) and attn.elementwise
// (DropRedundantElementwiseInputs, ForwardElementwiseResults), the folders of
// attn.cast, attn.split_heads and attn.merge_heads, and dead-code removal of
// the pure attn ops.

// A mask region that yields constant true is removed.
// CHECK-LABEL: func @true_mask_removed(
func.func @true_mask_removed(%q: tensor<1x4x64x32xf32>)
    -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>) {
  // CHECK: %[[OUT:.*]], %[[LSE:.*]] = attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} :
  // CHECK-SAME: -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>{{$}}
  // CHECK-NOT: mask
  // CHECK-NOT: attn.yield
  // CHECK: return %[[OUT]], %[[LSE]]
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %true = arith.constant true
      attn.yield %true : i1
    }
  return %out, %lse : tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
}

// -----

// A mask that folds to true (q_idx == q_idx) is removed as well; the
// attributes are kept.
// CHECK-LABEL: func @mask_folding_to_true_removed(
func.func @mask_folding_to_true_removed(%q: tensor<1x4x64x32xf32>)
    -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {window_left = 8 : i64} :
  // CHECK-SAME: -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>{{$}}
  // CHECK-NEXT: return
  %out, %lse = attn.attention %q, %q, %q {window_left = 8}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %same = arith.cmpi eq, %qi, %qi : index
      attn.yield %same : i1
    }
  return %out, %lse : tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
}

// -----

// A constant-false mask is not the identity and stays.
// CHECK-LABEL: func @false_mask_kept(
func.func @false_mask_kept(%q: tensor<1x4x64x32xf32>)
    -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>) {
  // CHECK: attn.attention
  // CHECK-SAME: mask {
  // CHECK: %[[FALSE:.*]] = arith.constant false
  // CHECK-NEXT: attn.yield %[[FALSE]] : i1
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %false = arith.constant false
      attn.yield %false : i1
    }
  return %out, %lse : tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
}

// -----

// A score region that yields its score argument is removed.
// CHECK-LABEL: func @identity_score_removed(
func.func @identity_score_removed(%q: tensor<1x4x64x32xbf16>)
    -> (tensor<1x4x64x32xbf16>, tensor<1x4x64xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {causal} :
  // CHECK-SAME: -> tensor<1x4x64x32xbf16>, tensor<1x4x64xf32>{{$}}
  // CHECK-NOT: score
  // CHECK-NOT: attn.yield
  // CHECK: return
  %out, %lse = attn.attention %q, %q, %q {causal}
      : tensor<1x4x64x32xbf16>, tensor<1x4x64x32xbf16>, tensor<1x4x64x32xbf16>
      -> tensor<1x4x64x32xbf16>, tensor<1x4x64xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      attn.yield %s : f32
    }
  return %out, %lse : tensor<1x4x64x32xbf16>, tensor<1x4x64xf32>
}

// -----

// A score that folds to the identity (s * 1.0) is removed.
// CHECK-LABEL: func @score_folding_to_identity_removed(
func.func @score_folding_to_identity_removed(%q: tensor<1x4x64x32xf32>)
    -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} :
  // CHECK-SAME: -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>{{$}}
  // CHECK-NEXT: return
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %one = arith.constant 1.0 : f32
      %r = arith.mulf %s, %one : f32
      attn.yield %r : f32
    }
  return %out, %lse : tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
}

// -----

// s + 0.0 is not the identity (it turns -0.0 into +0.0), so the score stays.
// CHECK-LABEL: func @score_plus_zero_kept(
func.func @score_plus_zero_kept(%q: tensor<1x4x64x32xf32>)
    -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>) {
  // CHECK: attn.attention
  // CHECK-SAME: score {
  // CHECK-NEXT: ^bb0(%[[S:.*]]: f32,
  // CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
  // CHECK-NEXT: %[[R:.*]] = arith.addf %[[S]], %[[ZERO]] : f32
  // CHECK-NEXT: attn.yield %[[R]] : f32
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %zero = arith.constant 0.0 : f32
      %r = arith.addf %s, %zero : f32
      attn.yield %r : f32
    }
  return %out, %lse : tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
}

// -----

// A true mask and an identity score are both removed from one op.
// CHECK-LABEL: func @true_mask_and_identity_score_removed(
func.func @true_mask_and_identity_score_removed(%q: tensor<1x4x64x32xf16>)
    -> (tensor<1x4x64x32xf16>, tensor<1x4x64xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {scale = 5.000000e-01 : f32} :
  // CHECK-SAME: -> tensor<1x4x64x32xf16>, tensor<1x4x64xf32>{{$}}
  // CHECK-NEXT: return
  %out, %lse = attn.attention %q, %q, %q {scale = 0.5 : f32}
      : tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>
      -> tensor<1x4x64x32xf16>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %true = arith.constant true
      attn.yield %true : i1
    }
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      attn.yield %s : f32
    }
  return %out, %lse : tensor<1x4x64x32xf16>, tensor<1x4x64xf32>
}

// -----

// A non-identity score survives the removal of a true mask.
// CHECK-LABEL: func @true_mask_removed_score_kept(
func.func @true_mask_removed_score_kept(%q: tensor<1x4x64x32xf32>)
    -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} :
  // CHECK-SAME: -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32> score {
  // CHECK-NEXT: ^bb0(%[[S:.*]]: f32,
  // CHECK-NEXT: %[[T:.*]] = math.tanh %[[S]] : f32
  // CHECK-NEXT: attn.yield %[[T]] : f32
  // CHECK-NEXT: }{{$}}
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %true = arith.constant true
      attn.yield %true : i1
    }
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %t = math.tanh %s : f32
      attn.yield %t : f32
    }
  return %out, %lse : tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
}

// -----

// k_idx <= q_idx (signed) becomes the causal shorthand.
// CHECK-LABEL: func @mask_sle_to_causal(
func.func @mask_sle_to_causal(%q: tensor<1x4x64x32xf32>)
    -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {causal} :
  // CHECK-SAME: -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>{{$}}
  // CHECK-NEXT: return
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %allowed = arith.cmpi sle, %ki, %qi : index
      attn.yield %allowed : i1
    }
  return %out, %lse : tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
}

// -----

// q_idx >= k_idx (signed, operands swapped) becomes causal.
// CHECK-LABEL: func @mask_sge_swapped_to_causal(
func.func @mask_sge_swapped_to_causal(%q: tensor<1x4x64x32xf32>)
    -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {causal} :
  // CHECK-SAME: -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>{{$}}
  // CHECK-NEXT: return
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %allowed = arith.cmpi sge, %qi, %ki : index
      attn.yield %allowed : i1
    }
  return %out, %lse : tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
}

// -----

// With bottom_right, causal would move the region's diagonal: it stays.
// CHECK-LABEL: func @mask_stays_under_bottom_right(
func.func @mask_stays_under_bottom_right(%q: tensor<1x4x64x32xf32>, %k: tensor<1x4x128x32xf32>)
    -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {bottom_right, window_left = 16 : i64} :
  // CHECK-SAME: mask {
  // CHECK: arith.cmpi sle
  %out, %lse = attn.attention %q, %k, %k {bottom_right, window_left = 16}
      : tensor<1x4x64x32xf32>, tensor<1x4x128x32xf32>, tensor<1x4x128x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %allowed = arith.cmpi sle, %ki, %qi : index
      attn.yield %allowed : i1
    }
  return %out, %lse : tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
}

// -----

// k_idx <= q_idx (unsigned) becomes causal.
// CHECK-LABEL: func @mask_ule_to_causal(
func.func @mask_ule_to_causal(%q: tensor<1x4x64x32xf32>)
    -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {causal} :
  // CHECK-SAME: -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>{{$}}
  // CHECK-NEXT: return
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %allowed = arith.cmpi ule, %ki, %qi : index
      attn.yield %allowed : i1
    }
  return %out, %lse : tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
}

// -----

// q_idx >= k_idx (unsigned, operands swapped) becomes causal; the window,
// scale and tiles attributes and the score region are kept.
// CHECK-LABEL: func @mask_uge_swapped_to_causal_keeps_rest(
func.func @mask_uge_swapped_to_causal_keeps_rest(%q: tensor<?x8x?x64xf16>, %k: tensor<?x2x?x64xf16>)
    -> (tensor<?x8x?x64xf16>, tensor<?x8x?xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {causal, scale = 2.500000e-01 : f32, tiles = #attn.tiles<block_m = 64, block_n = 32>, window_left = 256 : i64} :
  // CHECK-SAME: -> tensor<?x8x?x64xf16>, tensor<?x8x?xf32> score {
  // CHECK-NEXT: ^bb0(%[[S:.*]]: f32,
  // CHECK-NEXT: %[[T:.*]] = math.tanh %[[S]] : f32
  // CHECK-NEXT: attn.yield %[[T]] : f32
  // CHECK-NEXT: }{{$}}
  %out, %lse = attn.attention %q, %k, %k
      {window_left = 256, scale = 0.25 : f32, tiles = #attn.tiles<block_m = 64, block_n = 32>}
      : tensor<?x8x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16>
      -> tensor<?x8x?x64xf16>, tensor<?x8x?xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %allowed = arith.cmpi uge, %qi, %ki : index
      attn.yield %allowed : i1
    }
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %t = math.tanh %s : f32
      attn.yield %t : f32
    }
  return %out, %lse : tensor<?x8x?x64xf16>, tensor<?x8x?xf32>
}

// -----

// A causal mask on an op that is already causal is dropped.
// CHECK-LABEL: func @causal_mask_on_causal_op(
func.func @causal_mask_on_causal_op(%q: tensor<1x4x64x32xf32>)
    -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {causal} :
  // CHECK-SAME: -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>{{$}}
  // CHECK-NEXT: return
  %out, %lse = attn.attention %q, %q, %q {causal}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %allowed = arith.cmpi sle, %ki, %qi : index
      attn.yield %allowed : i1
    }
  return %out, %lse : tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
}

// -----

// k_idx < q_idx (strict) is not causal and stays.
// CHECK-LABEL: func @mask_slt_kept(
func.func @mask_slt_kept(%q: tensor<1x4x64x32xf32>)
    -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} :
  // CHECK-NOT: causal
  // CHECK-SAME: mask {
  // CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index, %[[QI:.*]]: index, %[[KI:.*]]: index):
  // CHECK-NEXT: %[[A:.*]] = arith.cmpi slt, %[[KI]], %[[QI]] : index
  // CHECK-NEXT: attn.yield %[[A]] : i1
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %allowed = arith.cmpi slt, %ki, %qi : index
      attn.yield %allowed : i1
    }
  return %out, %lse : tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
}

// -----

// q_idx <= k_idx is anti-causal and stays.
// CHECK-LABEL: func @mask_anti_causal_sle_kept(
func.func @mask_anti_causal_sle_kept(%q: tensor<1x4x64x32xf32>)
    -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} :
  // CHECK-NOT: causal
  // CHECK-SAME: mask {
  // CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index, %[[QI:.*]]: index, %[[KI:.*]]: index):
  // CHECK-NEXT: %[[A:.*]] = arith.cmpi sle, %[[QI]], %[[KI]] : index
  // CHECK-NEXT: attn.yield %[[A]] : i1
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %allowed = arith.cmpi sle, %qi, %ki : index
      attn.yield %allowed : i1
    }
  return %out, %lse : tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
}

// -----

// k_idx >= q_idx is anti-causal and stays.
// CHECK-LABEL: func @mask_anti_causal_uge_kept(
func.func @mask_anti_causal_uge_kept(%q: tensor<1x4x64x32xf32>)
    -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} :
  // CHECK-NOT: causal
  // CHECK-SAME: mask {
  // CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index, %[[QI:.*]]: index, %[[KI:.*]]: index):
  // CHECK-NEXT: %[[A:.*]] = arith.cmpi uge, %[[KI]], %[[QI]] : index
  // CHECK-NEXT: attn.yield %[[A]] : i1
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %allowed = arith.cmpi uge, %ki, %qi : index
      attn.yield %allowed : i1
    }
  return %out, %lse : tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
}

// -----

// A comparison of the batch and head indices (b <= h) is not causal.
// CHECK-LABEL: func @mask_on_batch_and_head_kept(
func.func @mask_on_batch_and_head_kept(%q: tensor<1x4x64x32xf32>)
    -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} :
  // CHECK-NOT: causal
  // CHECK-SAME: mask {
  // CHECK-NEXT: ^bb0(%[[B:.*]]: index, %[[H:.*]]: index, %{{.*}}: index, %{{.*}}: index):
  // CHECK-NEXT: %[[A:.*]] = arith.cmpi sle, %[[B]], %[[H]] : index
  // CHECK-NEXT: attn.yield %[[A]] : i1
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %allowed = arith.cmpi sle, %b, %h : index
      attn.yield %allowed : i1
    }
  return %out, %lse : tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
}

// -----

// A sliding-window mask (q_idx - k_idx <= 128) is window_left = 128, not
// causal.
// CHECK-LABEL: func @mask_window_to_window_left(
func.func @mask_window_to_window_left(%q: tensor<1x4x64x32xf32>)
    -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {window_left = 128 : i64} :
  // CHECK-SAME: -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>{{$}}
  // CHECK-NEXT: return
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %w = arith.constant 128 : index
      %d = arith.subi %qi, %ki : index
      %allowed = arith.cmpi sle, %d, %w : index
      attn.yield %allowed : i1
    }
  return %out, %lse : tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
}

// -----

// Causal combined with something else (k_idx <= q_idx and k_idx >= 16):
// the causal term becomes the shorthand, the other stays as the mask.
// CHECK-LABEL: func @mask_causal_term_extracted(
func.func @mask_causal_term_extracted(%q: tensor<1x4x64x32xf32>)
    -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {causal} :
  // CHECK-SAME: mask {
  // CHECK: %[[M:.*]] = arith.cmpi sge
  // CHECK-NEXT: attn.yield %[[M]] : i1
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %c16 = arith.constant 16 : index
      %causal = arith.cmpi sle, %ki, %qi : index
      %sink = arith.cmpi sge, %ki, %c16 : index
      %allowed = arith.andi %causal, %sink : i1
      attn.yield %allowed : i1
    }
  return %out, %lse : tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
}

// -----

// attn.cast to the same type without a scale folds away.
// CHECK-LABEL: func @cast_same_type_folds(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x128xf32>)
func.func @cast_same_type_folds(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // CHECK-NOT: attn.cast
  // CHECK: return %[[X]] : tensor<8x128xf32>
  %y = attn.cast %x : tensor<8x128xf32> to tensor<8x128xf32>
  return %y : tensor<8x128xf32>
}

// -----

// attn.cast to the same type with an explicit unit scale folds away.
// CHECK-LABEL: func @cast_same_type_unit_scale_folds(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<?x64xbf16>)
func.func @cast_same_type_unit_scale_folds(%x: tensor<?x64xbf16>) -> tensor<?x64xbf16> {
  // CHECK-NOT: attn.cast
  // CHECK: return %[[X]] : tensor<?x64xbf16>
  %y = attn.cast %x {scale = 1.0 : f32} : tensor<?x64xbf16> to tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}

// -----

// attn.cast to the same type with scale 2.0 is a multiplication and stays.
// CHECK-LABEL: func @cast_same_type_with_scale_kept(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x128xf32>)
func.func @cast_same_type_with_scale_kept(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // CHECK: %[[Y:.*]] = attn.cast %[[X]] {scale = 2.000000e+00 : f32} : tensor<8x128xf32> to tensor<8x128xf32>
  // CHECK-NEXT: return %[[Y]]
  %y = attn.cast %x {scale = 2.0 : f32} : tensor<8x128xf32> to tensor<8x128xf32>
  return %y : tensor<8x128xf32>
}

// -----

// A real conversion stays, and a round trip f32 -> bf16 -> f32 is not folded
// (it rounds).
// CHECK-LABEL: func @cast_round_trip_kept(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x128xf32>)
func.func @cast_round_trip_kept(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // CHECK: %[[H:.*]] = attn.cast %[[X]] : tensor<8x128xf32> to tensor<8x128xbf16>
  // CHECK-NEXT: %[[Y:.*]] = attn.cast %[[H]] : tensor<8x128xbf16> to tensor<8x128xf32>
  // CHECK-NEXT: return %[[Y]]
  %h = attn.cast %x : tensor<8x128xf32> to tensor<8x128xbf16>
  %y = attn.cast %h : tensor<8x128xbf16> to tensor<8x128xf32>
  return %y : tensor<8x128xf32>
}

// -----

// Unused attn ops are pure and are removed.
// CHECK-LABEL: func @unused_ops_removed(
func.func @unused_ops_removed(%q: tensor<1x4x64x32xf32>, %x: tensor<8x128xf32>) {
  // CHECK-NOT: attn.
  // CHECK: return
  %out, %lse = attn.attention %q, %q, %q {causal}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %t = math.tanh %s : f32
      attn.yield %t : f32
    }
  %lin = attn.linear_attention favor %q, %q, %q {num_features = 64, seed = 1}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>
  %y = attn.cast %x {scale = 4.0 : f32} : tensor<8x128xf32> to tensor<8x128xf8E4M3FN>
  return
}

// -----

// Only the lse of attn.attention is used: the op stays.
// CHECK-LABEL: func @attention_lse_only_kept(
func.func @attention_lse_only_kept(%q: tensor<1x4x64x32xf32>) -> tensor<1x4x64xf32> {
  // CHECK: %{{.*}}, %[[LSE:.*]] = attn.attention
  // CHECK-NEXT: return %[[LSE]]
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return %lse : tensor<1x4x64xf32>
}

// -----

// Dead ops inside a region are removed too, leaving the live mask.
// CHECK-LABEL: func @dead_region_ops_removed(
func.func @dead_region_ops_removed(%q: tensor<1x4x64x32xf32>)
    -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>) {
  // CHECK: attn.attention
  // CHECK-SAME: mask {
  // CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index, %[[QI:.*]]: index, %[[KI:.*]]: index):
  // CHECK-NEXT: %[[A:.*]] = arith.cmpi ne, %[[KI]], %[[QI]] : index
  // CHECK-NEXT: attn.yield %[[A]] : i1
  // CHECK-NEXT: }{{$}}
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %c7 = arith.constant 7 : index
      %dead = arith.muli %qi, %c7 : index
      %allowed = arith.cmpi ne, %ki, %qi : index
      attn.yield %allowed : i1
    }
  return %out, %lse : tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
}

// -----

// A sliding window as attnc.flex traces it, (k <= q) & (q - k <= 256),
// becomes causal + window_left; nothing of the mask is left.
// CHECK-LABEL: func @flex_sliding_window(
func.func @flex_sliding_window(%q: tensor<1x4x64x32xf32>)
    -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {causal, window_left = 256 : i64} :
  // CHECK-SAME: -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>{{$}}
  // CHECK-NEXT: return
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %c256 = arith.constant 256 : index
      %past = arith.cmpi sle, %ki, %qi : index
      %d = arith.subi %qi, %ki : index
      %near = arith.cmpi sle, %d, %c256 : index
      %m = arith.andi %past, %near : i1
      attn.yield %m : i1
    }
  return %out, %lse : tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
}

// -----

// Terms anywhere in a conjunction: a strict window (< 128 is <= 127), a
// right window written the other way round (8 >= k - q), the tighter of two
// left windows (the attribute's 100); the document term stays as the mask.
// CHECK-LABEL: func @shorthand_terms_of_a_conjunction(
func.func @shorthand_terms_of_a_conjunction(%q: tensor<1x4x64x32xf32>)
    -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {window_left = 100 : i64, window_right = 8 : i64} :
  // CHECK-SAME: mask {
  // CHECK: %[[QD:.*]] = arith.divui
  // CHECK: %[[KD:.*]] = arith.divui
  // CHECK: %[[SAME:.*]] = arith.cmpi eq, %[[QD]], %[[KD]] : index
  // CHECK-NEXT: attn.yield %[[SAME]] : i1
  %out, %lse = attn.attention %q, %q, %q {window_left = 100}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %c8 = arith.constant 8 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %qd = arith.divui %qi, %c64 : index
      %kd = arith.divui %ki, %c64 : index
      %same = arith.cmpi eq, %qd, %kd : index
      %back = arith.subi %qi, %ki : index
      %left = arith.cmpi slt, %back, %c128 : index
      %ahead = arith.subi %ki, %qi : index
      %right = arith.cmpi sge, %c8, %ahead : index
      %lr = arith.andi %left, %right : i1
      %m = arith.andi %same, %lr : i1
      attn.yield %m : i1
    }
  return %out, %lse : tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
}

// -----

// Not shorthands: a negative bound, an unsigned comparison of a difference
// (which may be negative), a disjunction.
// CHECK-LABEL: func @not_shorthands(
func.func @not_shorthands(%q: tensor<1x4x64x32xf32>)
    -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} :
  // CHECK-SAME: mask {
  // CHECK: arith.cmpi sle
  // CHECK: arith.cmpi ule
  // CHECK: arith.ori
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %cm1 = arith.constant -1 : index
      %c16 = arith.constant 16 : index
      %d = arith.subi %qi, %ki : index
      %neg = arith.cmpi sle, %d, %cm1 : index
      %uns = arith.cmpi ule, %d, %c16 : index
      %past = arith.cmpi sle, %ki, %qi : index
      %either = arith.ori %uns, %past : i1
      %m = arith.andi %neg, %either : i1
      attn.yield %m : i1
    }
  return %out, %lse : tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
}

// -----

// An input passed twice is read once; an input the body does not read goes.
// CHECK-LABEL: func @elementwise_redundant_inputs(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<?x8xbf16>
func.func @elementwise_redundant_inputs(%x: tensor<?x8xbf16>,
                                        %unread: tensor<?x8xf32>)
    -> tensor<?x8xbf16> {
  // CHECK: attn.elementwise %[[X]] : tensor<?x8xbf16> -> tensor<?x8xbf16> {
  // CHECK-NEXT: ^bb0(%[[A:.*]]: f32):
  // CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[A]], %[[A]] : f32
  // CHECK-NEXT: attn.yield %[[SQ]] : f32
  %y = attn.elementwise %x, %unread, %x
      : tensor<?x8xbf16>, tensor<?x8xf32>, tensor<?x8xbf16> -> tensor<?x8xbf16> {
  ^bb0(%a: f32, %u: f32, %b: f32):
    %sq = arith.mulf %a, %b : f32
    attn.yield %sq : f32
  }
  return %y : tensor<?x8xbf16>
}

// -----

// One input stays, even unread: it gives the shape.
// CHECK-LABEL: func @elementwise_keeps_one_input(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<?x8xf32>
func.func @elementwise_keeps_one_input(%x: tensor<?x8xf32>, %z: tensor<?x8xf32>)
    -> tensor<?x8xf32> {
  // CHECK: attn.elementwise %[[X]] : tensor<?x8xf32> -> tensor<?x8xf32> {
  // CHECK-NEXT: ^bb0(%{{.*}}: f32):
  // CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.0
  // CHECK-NEXT: attn.yield %[[ONE]] : f32
  %y = attn.elementwise %x, %z : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32> {
  ^bb0(%a: f32, %b: f32):
    %one = arith.constant 1.0 : f32
    attn.yield %one : f32
  }
  return %y : tensor<?x8xf32>
}

// -----

// The input that stays has the results' shape: a broadcast scalar gives
// no extents.
// CHECK-LABEL: func @elementwise_keeps_shaped_input(
// CHECK-SAME: %[[S:[a-zA-Z0-9_]+]]: tensor<f32>, %[[X:[a-zA-Z0-9_]+]]: tensor<?x8xf32>
func.func @elementwise_keeps_shaped_input(%s: tensor<f32>, %x: tensor<?x8xf32>)
    -> tensor<?x8xf32> {
  // CHECK: attn.elementwise %[[S]], %[[X]] : tensor<f32>, tensor<?x8xf32> -> tensor<?x8xf32> {
  // CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %{{.*}}: f32):
  // CHECK-NEXT: attn.yield %[[A]] : f32
  %y = attn.elementwise %s, %x : tensor<f32>, tensor<?x8xf32> -> tensor<?x8xf32> {
  ^bb0(%a: f32, %b: f32):
    attn.yield %a : f32
  }
  return %y : tensor<?x8xf32>
}

// -----

// A result yielding an input unchanged in the input's type is the input; a
// result yielding what an earlier one of its type yields is that one. Only
// the result that computes something stays.
// CHECK-LABEL: func @elementwise_forwarded_results(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<16xbf16>, %[[Z:[a-zA-Z0-9_]+]]: tensor<16xf32>
func.func @elementwise_forwarded_results(%x: tensor<16xbf16>, %z: tensor<16xf32>)
    -> (tensor<16xbf16>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  // CHECK: %[[S:.*]] = attn.elementwise %[[X]], %[[Z]] : tensor<16xbf16>, tensor<16xf32> -> tensor<16xf32> {
  // CHECK: arith.addf
  // CHECK-NEXT: attn.yield %{{.*}} : f32
  // CHECK-NEXT: }
  // CHECK-NEXT: return %[[X]], %[[S]], %[[S]], %[[Z]]
  %r:4 = attn.elementwise %x, %z
      : tensor<16xbf16>, tensor<16xf32>
      -> tensor<16xbf16>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    attn.yield %a, %s, %s, %b : f32, f32, f32, f32
  }
  return %r#0, %r#1, %r#2, %r#3
      : tensor<16xbf16>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}

// -----

// Yielding an input in another type is a conversion: it stays, and so does
// a repeated yield in another type.
// CHECK-LABEL: func @elementwise_conversion_kept(
func.func @elementwise_conversion_kept(%x: tensor<16xf32>)
    -> (tensor<16xbf16>, tensor<16xf16>) {
  // CHECK: %[[R:.*]]:2 = attn.elementwise %{{.*}} : tensor<16xf32> -> tensor<16xbf16>, tensor<16xf16> {
  // CHECK: return %[[R]]#0, %[[R]]#1
  %r:2 = attn.elementwise %x : tensor<16xf32> -> tensor<16xbf16>, tensor<16xf16> {
  ^bb0(%a: f32):
    attn.yield %a, %a : f32, f32
  }
  return %r#0, %r#1 : tensor<16xbf16>, tensor<16xf16>
}

// -----

// A layout change and its inverse, without tables, give the tensor back.
// CHECK-LABEL: func @heads_round_trips(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<?x?x256xbf16>, %[[Y:[a-zA-Z0-9_]+]]: tensor<?x4x?x64xbf16>
func.func @heads_round_trips(%x: tensor<?x?x256xbf16>, %y: tensor<?x4x?x64xbf16>)
    -> (tensor<?x?x256xbf16>, tensor<?x4x?x64xbf16>) {
  // CHECK-NOT: attn.split_heads
  // CHECK-NOT: attn.merge_heads
  // CHECK: return %[[X]], %[[Y]]
  %s = attn.split_heads %x : tensor<?x?x256xbf16> -> tensor<?x4x?x64xbf16>
  %xx = attn.merge_heads %s : tensor<?x4x?x64xbf16> -> tensor<?x?x256xbf16>
  %m = attn.merge_heads %y : tensor<?x4x?x64xbf16> -> tensor<?x?x256xbf16>
  %yy = attn.split_heads %m : tensor<?x?x256xbf16> -> tensor<?x4x?x64xbf16>
  return %xx, %yy : tensor<?x?x256xbf16>, tensor<?x4x?x64xbf16>
}

// -----

// Not round trips: rotary tables (cos^2 + sin^2 need not be 1), other head
// shapes, and a narrower type on the way.
// CHECK-LABEL: func @heads_kept(
func.func @heads_kept(%x: tensor<2x8x256xf32>, %cos: tensor<8x16xf32>,
                      %sin: tensor<8x16xf32>, %y: tensor<2x4x8x64xbf16>)
    -> (tensor<2x8x256xf32>, tensor<2x8x8x32xbf16>, tensor<2x8x256xf32>) {
  // CHECK: attn.split_heads
  // CHECK-NEXT: attn.merge_heads
  // CHECK-NEXT: attn.merge_heads
  // CHECK-NEXT: attn.split_heads
  // CHECK-NEXT: attn.split_heads
  // CHECK-NEXT: attn.merge_heads
  %r = attn.split_heads %x, %cos, %sin
      : tensor<2x8x256xf32>, tensor<8x16xf32>, tensor<8x16xf32>
      -> tensor<2x4x8x64xf32>
  %rr = attn.merge_heads %r, %cos, %sin
      : tensor<2x4x8x64xf32>, tensor<8x16xf32>, tensor<8x16xf32>
      -> tensor<2x8x256xf32>
  %m = attn.merge_heads %y : tensor<2x4x8x64xbf16> -> tensor<2x8x256xbf16>
  %other = attn.split_heads %m : tensor<2x8x256xbf16> -> tensor<2x8x8x32xbf16>
  %narrow = attn.split_heads %x : tensor<2x8x256xf32> -> tensor<2x4x8x64xbf16>
  %wide = attn.merge_heads %narrow : tensor<2x4x8x64xbf16> -> tensor<2x8x256xf32>
  return %rr, %other, %wide
      : tensor<2x8x256xf32>, tensor<2x8x8x32xbf16>, tensor<2x8x256xf32>
}
