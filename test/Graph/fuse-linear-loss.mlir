// RUN: attn-opt %s -split-input-file -attn-fuse-linear-loss | FileCheck %s

// An LM head whose logits only the loss reads becomes one fused op.
// CHECK-LABEL: func.func @head
// CHECK-SAME:    (%[[H:.*]]: tensor<?x32xbf16>, %[[E:.*]]: tensor<24x32xbf16>, %[[Y:.*]]: tensor<?xi32>)
// CHECK-NEXT:    %[[L:.*]], %{{.*}} = attn.linear_cross_entropy %[[H]], %[[E]], %[[Y]] {ignore_index = 5 : i64}
// CHECK-NEXT:    return %[[L]]
func.func @head(%h: tensor<?x32xbf16>, %e: tensor<24x32xbf16>, %y: tensor<?xi32>) -> tensor<?xf32> {
  %logits = attn.matmul %h, %e {transpose_b} : tensor<?x32xbf16>, tensor<24x32xbf16> -> tensor<?x24xbf16>
  %l, %s = attn.cross_entropy %logits, %y {ignore_index = 5 : i64} : tensor<?x24xbf16>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  return %l : tensor<?xf32>
}

// -----

// Logits something else reads stay whole.
// CHECK-LABEL: func.func @logits_returned
// CHECK:         attn.matmul
// CHECK:         attn.cross_entropy
// CHECK-NOT:     attn.linear_cross_entropy
func.func @logits_returned(%h: tensor<?x32xbf16>, %e: tensor<24x32xbf16>, %y: tensor<?xi32>) -> (tensor<?xf32>, tensor<?x24xbf16>) {
  %logits = attn.matmul %h, %e {transpose_b} : tensor<?x32xbf16>, tensor<24x32xbf16> -> tensor<?x24xbf16>
  %l, %s = attn.cross_entropy %logits, %y {ignore_index = 5 : i64} : tensor<?x24xbf16>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  return %l, %logits : tensor<?xf32>, tensor<?x24xbf16>
}

// -----

// A head with a bias is no plain LM head.
// CHECK-LABEL: func.func @biased_head
// CHECK:         attn.matmul
// CHECK-NOT:     attn.linear_cross_entropy
func.func @biased_head(%h: tensor<?x32xf32>, %e: tensor<24x32xf32>, %b: tensor<24xf32>, %y: tensor<?xi32>) -> tensor<?xf32> {
  %logits = attn.matmul %h, %e, %b {transpose_b} : tensor<?x32xf32>, tensor<24x32xf32>, tensor<24xf32> -> tensor<?x24xf32>
  %l, %s = attn.cross_entropy %logits, %y {ignore_index = 5 : i64} : tensor<?x24xf32>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  return %l : tensor<?xf32>
}

// -----

// Nor is a table read untransposed ([C, V]: a chunk of classes would be
// columns), nor logits wider than h's elements.
// CHECK-LABEL: func.func @not_heads
// CHECK-NOT:     attn.linear_cross_entropy
func.func @not_heads(%h: tensor<?x32xbf16>, %w: tensor<32x24xbf16>, %e: tensor<24x32xbf16>, %y: tensor<?xi32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %a = attn.matmul %h, %w : tensor<?x32xbf16>, tensor<32x24xbf16> -> tensor<?x24xbf16>
  %l, %s = attn.cross_entropy %a, %y {ignore_index = 5 : i64} : tensor<?x24xbf16>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  %b = attn.matmul %h, %e {transpose_b} : tensor<?x32xbf16>, tensor<24x32xbf16> -> tensor<?x24xf32>
  %m, %t = attn.cross_entropy %b, %y {ignore_index = 5 : i64} : tensor<?x24xf32>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  return %l, %m : tensor<?xf32>, tensor<?xf32>
}
