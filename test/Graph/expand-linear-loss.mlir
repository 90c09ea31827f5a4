// RUN: attn-opt %s -split-input-file -attn-expand-linear-loss='vocab-chunk=10' | FileCheck %s

// The forward: per chunk of table rows (10, 10, then 4), the logits and
// their part; the parts as rows, then one combine.
// CHECK-LABEL: func.func @forward
// CHECK-SAME:    (%[[H:.*]]: tensor<?x32xbf16>, %[[E:.*]]: tensor<24x32xbf16>, %[[Y:.*]]: tensor<?xi32>)
// CHECK:         %[[E0:.*]] = tensor.extract_slice %[[E]][0, 0] [10, 32] [1, 1]
// CHECK:         tensor.extract_slice %[[E]][10, 0] [10, 32] [1, 1]
// CHECK:         %[[E2:.*]] = tensor.extract_slice %[[E]][20, 0] [4, 32] [1, 1]
// CHECK:         %[[L0:.*]] = attn.matmul %[[H]], %[[E0]] {transpose_b} : tensor<?x32xbf16>, tensor<10x32xbf16> -> tensor<?x10xbf16>
// CHECK:         %[[S0:.*]], %[[T0:.*]] = attn.cross_entropy_partial %[[L0]], %[[Y]] {ignore_index = 5 : i64, vocab_offset = 0 : i64} : tensor<?x10xbf16>, tensor<?xi32> -> tensor<1x?xf32>, tensor<1x?xf32>
// CHECK:         attn.cross_entropy_partial {{.*}} vocab_offset = 10 : i64
// CHECK:         attn.matmul %[[H]], %[[E2]] {transpose_b} : tensor<?x32xbf16>, tensor<4x32xbf16> -> tensor<?x4xbf16>
// CHECK:         %[[S2:.*]], %[[T2:.*]] = attn.cross_entropy_partial {{.*}} vocab_offset = 20 : i64
// CHECK:         %[[PARTS:.*]] = tensor.concat dim(0) %[[S0]], %{{.*}}, %[[S2]] : {{.*}} -> tensor<3x?xf32>
// CHECK:         %[[TARGETS:.*]] = tensor.concat dim(0) %[[T0]], %{{.*}}, %[[T2]]
// CHECK:         attn.cross_entropy_combine %[[PARTS]], %[[TARGETS]], %[[Y]] {ignore_index = 5 : i64, vocab_size = 24 : i64}
func.func @forward(%h: tensor<?x32xbf16>, %e: tensor<24x32xbf16>, %y: tensor<?xi32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %l, %s = attn.linear_cross_entropy %h, %e, %y {ignore_index = 5 : i64} : tensor<?x32xbf16>, tensor<24x32xbf16>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  return %l, %s : tensor<?xf32>, tensor<?xf32>
}

// -----

// The gradient: per chunk the logits again, their gradient, dh summed in
// f32 through the matmuls' addends, each chunk's table rows; dh rounded
// once.
// CHECK-LABEL: func.func @gradient
// CHECK-SAME:    (%[[H:.*]]: tensor<?x32xbf16>, %[[E:.*]]: tensor<24x32xbf16>, %[[Y:.*]]: tensor<?xi32>, %[[S:.*]]: tensor<?xf32>, %[[D:.*]]: tensor<?xf32>)
// CHECK:         %[[E0:.*]] = tensor.extract_slice %[[E]][0, 0] [10, 32] [1, 1]
// CHECK:         %[[L0:.*]] = attn.matmul %[[H]], %[[E0]] {transpose_b}
// CHECK:         %[[G0:.*]] = attn.cross_entropy_grad %[[L0]], %[[Y]], %[[S]], %[[D]] {ignore_index = 5 : i64}
// CHECK:         %[[DE0:.*]] = attn.matmul %[[G0]], %[[H]] {transpose_a} : tensor<?x10xbf16>, tensor<?x32xbf16> -> tensor<10x32xbf16>
// CHECK:         %[[DH0:.*]] = attn.matmul %[[G0]], %[[E0]] : tensor<?x10xbf16>, tensor<10x32xbf16> -> tensor<?x32xf32>
// CHECK:         attn.cross_entropy_grad {{.*}} vocab_offset = 10 : i64
// CHECK:         %[[DH1:.*]] = attn.matmul %{{.*}}, %{{.*}} + %[[DH0]] : {{.*}} -> tensor<?x32xf32>
// CHECK:         attn.cross_entropy_grad {{.*}} vocab_offset = 20 : i64
// CHECK:         %[[DE2:.*]] = attn.matmul {{.*}} -> tensor<4x32xbf16>
// CHECK:         %[[DH2:.*]] = attn.matmul %{{.*}}, %{{.*}} + %[[DH1]]
// CHECK:         %[[DH:.*]] = attn.cast %[[DH2]] : tensor<?x32xf32> to tensor<?x32xbf16>
// CHECK:         %[[DE:.*]] = tensor.concat dim(0) %[[DE0]], %{{.*}}, %[[DE2]] : {{.*}} -> tensor<24x32xbf16>
// CHECK:         return %[[DH]], %[[DE]]
func.func @gradient(%h: tensor<?x32xbf16>, %e: tensor<24x32xbf16>, %y: tensor<?xi32>, %s: tensor<?xf32>, %d: tensor<?xf32>) -> (tensor<?x32xbf16>, tensor<24x32xbf16>) {
  %dh, %de = attn.linear_cross_entropy_grad %h, %e, %y, %s, %d {ignore_index = 5 : i64} : tensor<?x32xbf16>, tensor<24x32xbf16>, tensor<?xi32>, tensor<?xf32>, tensor<?xf32> -> tensor<?x32xbf16>, tensor<24x32xbf16>
  return %dh, %de : tensor<?x32xbf16>, tensor<24x32xbf16>
}

// -----

// One chunk holds a small vocabulary: no concatenation.
// CHECK-LABEL: func.func @one_chunk
// CHECK:         %[[S:.*]], %[[T:.*]] = attn.cross_entropy_partial
// CHECK-NOT:     tensor.concat
// CHECK:         attn.cross_entropy_combine %[[S]], %[[T]], {{.*}} vocab_size = 8 : i64
func.func @one_chunk(%h: tensor<?x32xf32>, %e: tensor<8x32xf32>, %y: tensor<?xi32>) -> tensor<?xf32> {
  %l, %s = attn.linear_cross_entropy %h, %e, %y {ignore_index = 5 : i64} : tensor<?x32xf32>, tensor<8x32xf32>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  return %l : tensor<?xf32>
}

// -----

// A training step: the gradient beside its forward reads the forward's
// logits (two GEMMs a chunk, not three) and the combine's lse.
// CHECK-LABEL: func.func @step
// CHECK-SAME:    (%[[H:.*]]: tensor<?x32xbf16>, %[[E:.*]]: tensor<24x32xbf16>, %[[Y:.*]]: tensor<?xi32>, %[[D:.*]]: tensor<?xf32>)
// CHECK:         %[[L0:.*]] = attn.matmul %[[H]], %{{.*}} {transpose_b} : {{.*}} -> tensor<?x10xbf16>
// CHECK:         %[[L1:.*]] = attn.matmul %[[H]], %{{.*}} {transpose_b} : {{.*}} -> tensor<?x10xbf16>
// CHECK:         %[[L2:.*]] = attn.matmul %[[H]], %{{.*}} {transpose_b} : {{.*}} -> tensor<?x4xbf16>
// CHECK:         %[[LOSSES:.*]], %[[LSE:.*]] = attn.cross_entropy_combine
// CHECK-NOT:     {transpose_b}
// CHECK:         attn.cross_entropy_grad %[[L0]], %[[Y]], %[[LSE]], %[[D]] {ignore_index = 5 : i64}
// CHECK:         attn.cross_entropy_grad %[[L1]], %[[Y]], %[[LSE]], %[[D]] {{.*}} vocab_offset = 10 : i64
// CHECK:         attn.cross_entropy_grad %[[L2]], %[[Y]], %[[LSE]], %[[D]] {{.*}} vocab_offset = 20 : i64
// CHECK:         return %[[LOSSES]], %{{.*}}, %{{.*}}
func.func @step(%h: tensor<?x32xbf16>, %e: tensor<24x32xbf16>, %y: tensor<?xi32>, %d: tensor<?xf32>) -> (tensor<?xf32>, tensor<?x32xbf16>, tensor<24x32xbf16>) {
  %l, %s = attn.linear_cross_entropy %h, %e, %y {ignore_index = 5 : i64} : tensor<?x32xbf16>, tensor<24x32xbf16>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  %dh, %de = attn.linear_cross_entropy_grad %h, %e, %y, %s, %d {ignore_index = 5 : i64} : tensor<?x32xbf16>, tensor<24x32xbf16>, tensor<?xi32>, tensor<?xf32>, tensor<?xf32> -> tensor<?x32xbf16>, tensor<24x32xbf16>
  return %l, %dh, %de : tensor<?xf32>, tensor<?x32xbf16>, tensor<24x32xbf16>
}

// -----

// A gradient of other labels than the forward's computes its own logits.
// CHECK-LABEL: func.func @other_labels
// CHECK-COUNT-2: {transpose_b}
// CHECK:         attn.cross_entropy_combine
// CHECK:         attn.matmul %{{.*}}, %{{.*}} {transpose_b}
// CHECK:         attn.cross_entropy_grad
func.func @other_labels(%h: tensor<?x32xbf16>, %e: tensor<16x32xbf16>, %y: tensor<?xi32>, %z: tensor<?xi32>, %d: tensor<?xf32>) -> (tensor<?xf32>, tensor<?x32xbf16>, tensor<16x32xbf16>) {
  %l, %s = attn.linear_cross_entropy %h, %e, %y {ignore_index = 5 : i64} : tensor<?x32xbf16>, tensor<16x32xbf16>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  %dh, %de = attn.linear_cross_entropy_grad %h, %e, %z, %s, %d {ignore_index = 5 : i64} : tensor<?x32xbf16>, tensor<16x32xbf16>, tensor<?xi32>, tensor<?xf32>, tensor<?xf32> -> tensor<?x32xbf16>, tensor<16x32xbf16>
  return %l, %dh, %de : tensor<?xf32>, tensor<?x32xbf16>, tensor<16x32xbf16>
}
