// RUN: attn-opt %s --attn-derive-backward --attn-derive-train-step=max-flat-elements=128 | FileCheck %s
// RUN: not attn-opt %s --attn-derive-backward --attn-derive-train-step=max-flat-elements=0 2>&1 | FileCheck %s --check-prefix=RANGE

// A state larger than max-flat-elements (2^31 - 1 by default, the largest
// extent) is split into chunks of whole parameters: here w (128 elements)
// fills chunk 0 and g chunk 1. Chunk 0 keeps the plain names, chunk 1 is
// params_1, m_1, v_1 (each marked with its chunk, each new state updating
// its own chunk); every segment names its chunk. Each chunk is cast and
// viewed on its own, the gradient is written into one flat tensor a chunk,
// the norm sums the chunks' sums of squares in chunk order, and AdamW runs
// over each chunk's matrices and others (here a whole chunk each).

// CHECK-LABEL: func.func @classify_step(
// CHECK-SAME: %[[P:[^:]*]]: tensor<128xf32> {attn.flat = 0 : i64, attn.name = "params"}, %[[P1:[^:]*]]: tensor<16xf32> {attn.flat = 1 : i64, attn.name = "params_1"},
// CHECK-SAME: %[[M:[^:]*]]: tensor<128xf32> {attn.flat = 0 : i64, attn.name = "m"}, %[[M1:[^:]*]]: tensor<16xf32> {attn.flat = 1 : i64, attn.name = "m_1"},
// CHECK-SAME: %[[V:[^:]*]]: tensor<128xf32> {attn.flat = 0 : i64, attn.name = "v"}, %[[V1:[^:]*]]: tensor<16xf32> {attn.flat = 1 : i64, attn.name = "v_1"},
// CHECK-SAME: %[[LR:[^:]*]]: tensor<f32> {attn.name = "lr"}
// CHECK-SAME: -> (tensor<f32> {attn.name = "loss"}, tensor<f32> {attn.name = "grad_norm"},
// CHECK-SAME: tensor<128xf32> {attn.flat = 0 : i64, attn.name = "new_params", attn.updates = "params"}, tensor<16xf32> {attn.flat = 1 : i64, attn.name = "new_params_1", attn.updates = "params_1"},
// CHECK-SAME: tensor<128xf32> {attn.flat = 0 : i64, attn.name = "new_m", attn.updates = "m"}, tensor<16xf32> {attn.flat = 1 : i64, attn.name = "new_m_1", attn.updates = "m_1"},
// CHECK-SAME: tensor<128xf32> {attn.flat = 0 : i64, attn.name = "new_v", attn.updates = "v"}, tensor<16xf32> {attn.flat = 1 : i64, attn.name = "new_v_1", attn.updates = "v_1"})
// CHECK-SAME: attributes {attn.segments = [{chunk = 0 : i64, name = "w", offset = 0 : i64, shape = array<i64: 8, 16>}, {chunk = 1 : i64, name = "g", offset = 0 : i64, shape = array<i64: 16>}]}
// CHECK: %[[PB:.*]] = attn.cast %[[P]] : tensor<128xf32> to tensor<128xbf16>
// CHECK: tensor.extract_slice %[[PB]][0] [128] [1]
// CHECK: %[[PB1:.*]] = attn.cast %[[P1]] : tensor<16xf32> to tensor<16xbf16>
// CHECK: tensor.extract_slice %[[PB1]][0] [16] [1]
// CHECK: %[[DW:.*]] = tensor.collapse_shape
// CHECK: %[[SS:.*]] = attn.sum_rows %[[DW]] {squares} : tensor<128xbf16> -> tensor<f32>
// CHECK: %[[SS1:.*]] = attn.sum_rows %[[DG:.*]] {squares} : tensor<16xbf16> -> tensor<f32>
// CHECK: %[[SUM:.*]] = attn.elementwise %[[SS]], %[[SS1]] : tensor<f32>, tensor<f32> -> tensor<f32>
// CHECK: arith.addf
// CHECK: %[[S:.*]]:5 = attn.elementwise %[[SUM]],
// CHECK: %[[U:.*]]:3 = attn.elementwise %[[DW]], %[[P]], %[[M]], %[[V]], %[[LR]], %[[S]]#1, %[[S]]#2, %[[S]]#3, %[[S]]#4 : tensor<128xbf16>, tensor<128xf32>
// CHECK: arith.constant 0.00999999977 : f32
// CHECK: %[[U1:.*]]:3 = attn.elementwise %[[DG]], %[[P1]], %[[M1]], %[[V1]], %[[LR]], %[[S]]#1, %[[S]]#2, %[[S]]#3, %[[S]]#4 : tensor<16xbf16>, tensor<16xf32>
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK: return %{{.*}}, %[[S]]#0, %[[U]]#0, %[[U1]]#0, %[[U]]#1, %[[U1]]#1, %[[U]]#2, %[[U1]]#2

// Each chunk's sums take its micro-batch's gradients.
// CHECK-LABEL: func.func @classify_accumulate(
// CHECK-SAME: %[[G:[^:]*]]: tensor<128xf32> {attn.flat = 0 : i64, attn.name = "grad"}, %[[G1:[^:]*]]: tensor<16xf32> {attn.flat = 1 : i64, attn.name = "grad_1"}
// CHECK-SAME: -> (tensor<f32> {attn.name = "loss"}, tensor<128xf32> {attn.flat = 0 : i64, attn.name = "new_grad", attn.updates = "grad"}, tensor<16xf32> {attn.flat = 1 : i64, attn.name = "new_grad_1", attn.updates = "grad_1"})
// CHECK: %[[A:.*]] = attn.elementwise %[[G]], %{{.*}} : tensor<128xf32>, tensor<128xbf16> -> tensor<128xf32>
// CHECK: %[[A1:.*]] = attn.elementwise %[[G1]], %{{.*}} : tensor<16xf32>, tensor<16xbf16> -> tensor<16xf32>
// CHECK: return %{{.*}}, %[[A]], %[[A1]]

// CHECK-LABEL: func.func @classify_apply(
// CHECK-SAME: %{{[^:]*}}: tensor<128xf32> {attn.flat = 0 : i64, attn.name = "grad"}, %{{[^:]*}}: tensor<16xf32> {attn.flat = 1 : i64, attn.name = "grad_1"}

// RANGE: error: attn-derive-train-step: max-flat-elements = 0 is outside [1, 2147483647]

func.func @classify(%x: tensor<?x16xbf16> {attn.name = "x"},
                    %labels: tensor<?xi32> {attn.name = "labels"},
                    %w: tensor<8x16xbf16> {attn.name = "w"},
                    %g: tensor<16xbf16> {attn.name = "g"}) -> tensor<f32>
    attributes {attn.backward, attn.train = {max_grad_norm = 1.0}} {
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
