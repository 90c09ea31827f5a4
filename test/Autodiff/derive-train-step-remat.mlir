// RUN: attn-opt %s --attn-derive-backward='remat=selective' --attn-derive-train-step --cse | FileCheck %s

// The backward recomputes what its remat policy does not save, each
// recomputed op marked attn.recompute. A step without `remat` keeps the
// forward part's values instead: its copy of the backward loses the mark
// and CSE merges the recomputation into the forward part, one norm. With
// `remat = true` the marked copy stays apart: the step computes the norm
// in its forward part and again for its backward, next to the matmul
// gradient that reads it; the matmul's result (saved under `selective`) is
// never recomputed.

// CHECK-LABEL: func.func @keep_bwd(
// CHECK:         attn.rms_norm {{.*}} {attn.recompute, epsilon = 9.99999974E-6 : f32}

// CHECK-LABEL: func.func @keep_step(
// CHECK:         attn.rms_norm %
// CHECK-NOT:     attn.rms_norm %
// CHECK-NOT:     attn.recompute
// CHECK:         return

// CHECK-LABEL: func.func @remat_step(
// CHECK:         %[[N:.*]], %{{.*}} = attn.rms_norm %{{.*}} {epsilon
// CHECK:         attn.matmul %[[N]]
// CHECK-NOT:     attn.matmul %[[N]]
// CHECK:         attn.token_mean_grad
// CHECK:         %[[AGAIN:.*]], %{{.*}} = attn.rms_norm %{{.*}} {attn.recompute, epsilon
// CHECK:         attn.matmul %{{.*}}, %[[AGAIN]] {transpose_a}
// CHECK-NOT:     attn.recompute
// CHECK:         return

func.func @keep(%x: tensor<?x16xbf16> {attn.name = "x"},
                %labels: tensor<?xi32> {attn.name = "labels"},
                %w: tensor<8x16xbf16> {attn.name = "w"},
                %g: tensor<16xbf16> {attn.name = "g"}) -> tensor<f32>
    attributes {attn.backward, attn.train} {
  %n, %r = attn.rms_norm %x, %g {epsilon = 1.0e-05 : f32}
      : tensor<?x16xbf16>, tensor<16xbf16> -> tensor<?x16xbf16>, tensor<?xf32>
  %logits = attn.matmul %n, %w {transpose_b}
      : tensor<?x16xbf16>, tensor<8x16xbf16> -> tensor<?x8xbf16>
  %losses, %lse = attn.cross_entropy %logits, %labels {ignore_index = -100 : i64}
      : tensor<?x8xbf16>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  %loss = attn.token_mean %losses, %labels {ignore_index = -100 : i64}
      : tensor<?xf32>, tensor<?xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @remat(%x: tensor<?x16xbf16> {attn.name = "x"},
                 %labels: tensor<?xi32> {attn.name = "labels"},
                 %w: tensor<8x16xbf16> {attn.name = "w"},
                 %g: tensor<16xbf16> {attn.name = "g"}) -> tensor<f32>
    attributes {attn.backward, attn.train = {remat = true}} {
  %n, %r = attn.rms_norm %x, %g {epsilon = 1.0e-05 : f32}
      : tensor<?x16xbf16>, tensor<16xbf16> -> tensor<?x16xbf16>, tensor<?xf32>
  %logits = attn.matmul %n, %w {transpose_b}
      : tensor<?x16xbf16>, tensor<8x16xbf16> -> tensor<?x8xbf16>
  %losses, %lse = attn.cross_entropy %logits, %labels {ignore_index = -100 : i64}
      : tensor<?x8xbf16>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  %loss = attn.token_mean %losses, %labels {ignore_index = -100 : i64}
      : tensor<?xf32>, tensor<?xi32> -> tensor<f32>
  return %loss : tensor<f32>
}
