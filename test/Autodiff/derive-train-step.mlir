// RUN: attn-opt %s --attn-derive-backward --attn-derive-train-step | FileCheck %s

// A linear classifier on a pre-norm: w and g are trained; x, of dynamic
// shape, is data. The step takes the f32 masters flat (w, a matrix, first,
// then g), the moments alike and the three scalars; casts the masters to
// bf16 once and reads each parameter as its slice, reshaped; runs the
// forward and backward bodies with loss_scale as the loss's cotangent;
// writes the gradients into one flat gradient; sums its squares; and
// updates w (with weight decay) and g (without) with one AdamW kernel
// each, whose results make up the new flat state.

// The forward and backward functions stay; the attribute is consumed.
// CHECK-LABEL: func.func @classify(
// CHECK-NOT: attn.train
// CHECK-LABEL: func.func @classify_bwd(

// CHECK-LABEL: func.func @classify_step(
// CHECK-SAME: %[[X:.*]]: tensor<?x16xbf16> {attn.name = "x"}, %[[LABELS:.*]]: tensor<?xi32> {attn.name = "labels"},
// CHECK-SAME: %[[P:.*]]: tensor<144xf32> {attn.flat, attn.name = "params"}, %[[M:.*]]: tensor<144xf32> {attn.flat, attn.name = "m"}, %[[V:.*]]: tensor<144xf32> {attn.flat, attn.name = "v"},
// CHECK-SAME: %[[LR:.*]]: tensor<f32> {attn.name = "lr"}, %[[STEP:.*]]: tensor<f32> {attn.name = "step"}, %[[SCALE:.*]]: tensor<f32> {attn.name = "loss_scale"})
// CHECK-SAME: -> (tensor<f32> {attn.name = "loss"}, tensor<f32> {attn.name = "grad_norm"},
// CHECK-SAME: tensor<144xf32> {attn.flat, attn.name = "new_params", attn.updates = "params"}, tensor<144xf32> {attn.flat, attn.name = "new_m", attn.updates = "m"}, tensor<144xf32> {attn.flat, attn.name = "new_v", attn.updates = "v"})
// CHECK-SAME: attributes {attn.segments = [{name = "w", offset = 0 : i64, shape = array<i64: 8, 16>}, {name = "g", offset = 128 : i64, shape = array<i64: 16>}]}
// CHECK: %[[PB:.*]] = attn.cast %[[P]] : tensor<144xf32> to tensor<144xbf16>
// CHECK: %[[WS:.*]] = tensor.extract_slice %[[PB]][0] [128] [1]
// CHECK: %[[WB:.*]] = tensor.expand_shape %[[WS]] {{\[}}[0, 1]] output_shape [8, 16] : tensor<128xbf16> into tensor<8x16xbf16>
// CHECK: %[[GB:.*]] = tensor.extract_slice %[[PB]][128] [16] [1] : tensor<144xbf16> to tensor<16xbf16>
// CHECK: attn.rms_norm %[[X]], %[[GB]]
// CHECK: attn.matmul %{{.*}}, %[[WB]] {transpose_b}
// CHECK: %[[LOSS:.*]] = attn.token_mean
// CHECK: attn.token_mean_grad %{{.*}}, %[[SCALE]]
// CHECK: %[[DW:.*]] = attn.matmul %{{.*}}, %{{.*}} {transpose_a} : {{.*}} -> tensor<8x16xbf16>
// CHECK: %[[DG:.*]] = attn.sum_rows %{{.*}} : tensor<4096x16xf32> -> tensor<16xbf16>
// CHECK: %[[DWF:.*]] = tensor.collapse_shape %[[DW]] {{\[}}[0, 1]] : tensor<8x16xbf16> into tensor<128xbf16>
// CHECK: %[[GRAD:.*]] = tensor.concat dim(0) %[[DWF]], %[[DG]] : (tensor<128xbf16>, tensor<16xbf16>) -> tensor<144xbf16>
// CHECK: %[[INV:.*]] = attn.elementwise %[[SCALE]] : tensor<f32> -> tensor<f32>
// CHECK: %[[SS:.*]] = attn.sum_rows %[[GRAD]] {squares} : tensor<144xbf16> -> tensor<f32>
// CHECK: %[[S:.*]]:5 = attn.elementwise %[[SS]], %[[INV]], %[[STEP]] : tensor<f32>, tensor<f32>, tensor<f32> -> tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
// CHECK: math.sqrt
// CHECK: arith.minimumf
// CHECK: arith.cmpf one
// CHECK: math.powf
// CHECK: %[[GW:.*]] = tensor.extract_slice %[[GRAD]][0] [128] [1]
// CHECK: %[[PW:.*]] = tensor.extract_slice %[[P]][0] [128] [1]
// CHECK: %[[MW:.*]] = tensor.extract_slice %[[M]][0] [128] [1]
// CHECK: %[[VW:.*]] = tensor.extract_slice %[[V]][0] [128] [1]
// CHECK: %[[UW:.*]]:3 = attn.elementwise %[[GW]], %[[PW]], %[[MW]], %[[VW]], %[[LR]], %[[S]]#1, %[[S]]#2, %[[S]]#3, %[[S]]#4 : tensor<128xbf16>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32> -> tensor<128xf32>, tensor<128xf32>, tensor<128xf32>
// CHECK: arith.constant 0.00999999977 : f32
// CHECK: %[[UG:.*]]:3 = attn.elementwise %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[LR]], %[[S]]#1, %[[S]]#2, %[[S]]#3, %[[S]]#4 : tensor<16xbf16>, tensor<16xf32>
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK: %[[NP:.*]] = tensor.concat dim(0) %[[UW]]#0, %[[UG]]#0
// CHECK: %[[NM:.*]] = tensor.concat dim(0) %[[UW]]#1, %[[UG]]#1
// CHECK: %[[NV:.*]] = tensor.concat dim(0) %[[UW]]#2, %[[UG]]#2
// CHECK: return %[[LOSS]], %[[S]]#0, %[[NP]], %[[NM]], %[[NV]]

// The step split for micro-batches: _accumulate adds one micro-batch's
// flat gradient (its loss cotangent is loss_scale) to the f32 sums, _apply
// is the step's update from those sums.
// CHECK-LABEL: func.func @classify_accumulate(
// CHECK-SAME: %{{.*}}: tensor<?x16xbf16> {attn.name = "x"}, %{{.*}}: tensor<?xi32> {attn.name = "labels"},
// CHECK-SAME: %{{.*}}: tensor<144xf32> {attn.flat, attn.name = "params"}, %[[SUM:.*]]: tensor<144xf32> {attn.flat, attn.name = "grad"},
// CHECK-SAME: %[[ASCALE:.*]]: tensor<f32> {attn.name = "loss_scale"})
// CHECK-SAME: -> (tensor<f32> {attn.name = "loss"}, tensor<144xf32> {attn.flat, attn.name = "new_grad", attn.updates = "grad"})
// CHECK: %[[ALOSS:.*]] = attn.token_mean
// CHECK: attn.token_mean_grad %{{.*}}, %[[ASCALE]]
// CHECK: %[[AGRAD:.*]] = tensor.concat
// CHECK: %[[NEW:.*]] = attn.elementwise %[[SUM]], %[[AGRAD]] : tensor<144xf32>, tensor<144xbf16> -> tensor<144xf32>
// CHECK: arith.addf
// CHECK: return %[[ALOSS]], %[[NEW]]

// CHECK-LABEL: func.func @classify_apply(
// CHECK-SAME: %{{.*}}: tensor<144xf32> {attn.flat, attn.name = "params"}, %{{.*}}: tensor<144xf32> {attn.flat, attn.name = "m"}, %{{.*}}: tensor<144xf32> {attn.flat, attn.name = "v"},
// CHECK-SAME: %[[SUMS:.*]]: tensor<144xf32> {attn.flat, attn.name = "grad"},
// CHECK-SAME: {attn.name = "lr"}, %{{.*}} {attn.name = "step"}, %{{.*}} {attn.name = "loss_scale"})
// CHECK-SAME: -> (tensor<f32> {attn.name = "grad_norm"}, tensor<144xf32> {attn.flat, attn.name = "new_params", attn.updates = "params"},
// CHECK: attn.sum_rows %[[SUMS]] {squares} : tensor<144xf32> -> tensor<f32>
// CHECK: tensor.extract_slice %[[SUMS]][0] [128] [1]
// CHECK: attn.elementwise {{.*}} -> tensor<128xf32>, tensor<128xf32>, tensor<128xf32>
// CHECK: tensor.extract_slice %[[SUMS]][128] [16] [1]
// CHECK: attn.elementwise {{.*}} -> tensor<16xf32>, tensor<16xf32>, tensor<16xf32>

// The forward part alone: a (validation) batch's loss at the weights in
// params, with no backward and no update.
// CHECK-LABEL: func.func @classify_eval(
// CHECK-SAME: %[[EX:.*]]: tensor<?x16xbf16> {attn.name = "x"}, %[[ELABELS:.*]]: tensor<?xi32> {attn.name = "labels"},
// CHECK-SAME: %[[EP:.*]]: tensor<144xf32> {attn.flat, attn.name = "params"})
// CHECK-SAME: -> (tensor<f32> {attn.name = "loss"})
// CHECK-SAME: attributes {attn.segments = [{name = "w", offset = 0 : i64, shape = array<i64: 8, 16>}, {name = "g", offset = 128 : i64, shape = array<i64: 16>}]}
// CHECK: %[[EPB:.*]] = attn.cast %[[EP]] : tensor<144xf32> to tensor<144xbf16>
// CHECK: attn.rms_norm %[[EX]]
// CHECK: %[[ELOSS:.*]] = attn.token_mean %{{.*}}, %[[ELABELS]]
// CHECK-NOT: _grad
// CHECK: return %[[ELOSS]] : tensor<f32>

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

// Parameters of two element types: the flat gradient is f32, the gradient
// of the other type cast to it before it takes its place.
// CHECK-LABEL: func.func @mixed_step(
// CHECK: %[[DW:.*]] = attn.cast %{{.*}} : tensor<8x16xbf16> to tensor<8x16xf32>
// CHECK: %[[DWF:.*]] = tensor.collapse_shape %[[DW]] {{\[}}[0, 1]] : tensor<8x16xf32> into tensor<128xf32>
// CHECK: %[[DG:.*]] = attn.cast %{{.*}} : tensor<16xbf16> to tensor<16xf32>
// CHECK: tensor.concat dim(0) %[[DWF]], %[[DG]] : (tensor<128xf32>, tensor<16xf32>) -> tensor<144xf32>

func.func @mixed(%x: tensor<?x16xbf16> {attn.name = "x"},
                 %labels: tensor<?xi32> {attn.name = "labels"},
                 %w: tensor<8x16xf32> {attn.name = "w"},
                 %g: tensor<16xbf16> {attn.name = "g"}) -> tensor<f32>
    attributes {attn.backward, attn.train} {
  %n, %r = attn.rms_norm %x, %g {epsilon = 1.0e-05 : f32}
      : tensor<?x16xbf16>, tensor<16xbf16> -> tensor<?x16xbf16>, tensor<?xf32>
  %wb = attn.cast %w : tensor<8x16xf32> to tensor<8x16xbf16>
  %logits = attn.matmul %n, %wb {transpose_b}
      : tensor<?x16xbf16>, tensor<8x16xbf16> -> tensor<?x8xbf16>
  %losses, %lse = attn.cross_entropy %logits, %labels {ignore_index = -100 : i64}
      : tensor<?x8xbf16>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  %loss = attn.token_mean %losses, %labels {ignore_index = -100 : i64}
      : tensor<?xf32>, tensor<?xi32> -> tensor<f32>
  return %loss : tensor<f32>
}
