// RUN: attn-opt %s --attn-derive-backward --attn-derive-train-step | FileCheck %s
// RUN: attn-opt %s --attn-derive-backward=deterministic --attn-derive-train-step | FileCheck %s --check-prefix=EVERYWHERE

// A training step sums dq in a fixed order unless its attn.train says
// `deterministic = false`, so that a run and its resumption are the same
// bits; the backward function keeps the derive pass's choice, and
// `deterministic` there (attnc --deterministic-grad) reaches every copy.

// CHECK-LABEL: func.func @fixed_bwd(
// CHECK:         attn.attention_grad {{.*}} {causal} :
// CHECK-LABEL: func.func @fixed_step(
// CHECK:         attn.attention_grad {{.*}}{causal, deterministic
// CHECK-LABEL: func.func @fixed_accumulate(
// CHECK:         attn.attention_grad {{.*}}{causal, deterministic

// CHECK-LABEL: func.func @atomic_step(
// CHECK:         attn.attention_grad {{.*}} {causal} :
// CHECK-LABEL: func.func @atomic_accumulate(
// CHECK:         attn.attention_grad {{.*}} {causal} :

// EVERYWHERE-LABEL: func.func @atomic_step(
// EVERYWHERE:         attn.attention_grad {{.*}}{causal, deterministic

func.func @fixed(%x: tensor<?x?x16xbf16> {attn.name = "x"},
                 %labels: tensor<?x?xi32> {attn.name = "labels"},
                 %w: tensor<4x16xbf16> {attn.name = "w"}) -> tensor<f32>
    attributes {attn.backward, attn.train} {
  %h = attn.split_heads %x : tensor<?x?x16xbf16> -> tensor<?x2x?x8xbf16>
  %out, %lse = attn.attention %h, %h, %h {causal}
      : tensor<?x2x?x8xbf16>, tensor<?x2x?x8xbf16>, tensor<?x2x?x8xbf16>
      -> tensor<?x2x?x8xbf16>, tensor<?x2x?xf32>
  %merged = attn.merge_heads %out : tensor<?x2x?x8xbf16> -> tensor<?x?x16xbf16>
  %logits = attn.matmul %merged, %w {transpose_b}
      : tensor<?x?x16xbf16>, tensor<4x16xbf16> -> tensor<?x?x4xbf16>
  %losses, %l = attn.cross_entropy %logits, %labels {ignore_index = -100 : i64}
      : tensor<?x?x4xbf16>, tensor<?x?xi32> -> tensor<?x?xf32>, tensor<?x?xf32>
  %loss = attn.token_mean %losses, %labels {ignore_index = -100 : i64}
      : tensor<?x?xf32>, tensor<?x?xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @atomic(%x: tensor<?x?x16xbf16> {attn.name = "x"},
                  %labels: tensor<?x?xi32> {attn.name = "labels"},
                  %w: tensor<4x16xbf16> {attn.name = "w"}) -> tensor<f32>
    attributes {attn.backward, attn.train = {deterministic = false}} {
  %h = attn.split_heads %x : tensor<?x?x16xbf16> -> tensor<?x2x?x8xbf16>
  %out, %lse = attn.attention %h, %h, %h {causal}
      : tensor<?x2x?x8xbf16>, tensor<?x2x?x8xbf16>, tensor<?x2x?x8xbf16>
      -> tensor<?x2x?x8xbf16>, tensor<?x2x?xf32>
  %merged = attn.merge_heads %out : tensor<?x2x?x8xbf16> -> tensor<?x?x16xbf16>
  %logits = attn.matmul %merged, %w {transpose_b}
      : tensor<?x?x16xbf16>, tensor<4x16xbf16> -> tensor<?x?x4xbf16>
  %losses, %l = attn.cross_entropy %logits, %labels {ignore_index = -100 : i64}
      : tensor<?x?x4xbf16>, tensor<?x?xi32> -> tensor<?x?xf32>, tensor<?x?xf32>
  %loss = attn.token_mean %losses, %labels {ignore_index = -100 : i64}
      : tensor<?x?xf32>, tensor<?x?xi32> -> tensor<f32>
  return %loss : tensor<f32>
}
