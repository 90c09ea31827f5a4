// RUN: attn-opt %s --attn-derive-backward --attn-derive-train-step | FileCheck %s

// A linear classifier on a pre-norm: w and g are trained; x, of dynamic
// shape, is data. The step takes the f32 masters, the moments and the
// three scalars, casts each master to its parameter's type, runs the
// forward and backward bodies with loss_scale as the loss's cotangent,
// sums the squares of the gradients (w's over its rows first, the column
// sums of both concatenated) and updates each parameter with AdamW.

// The forward and backward functions stay; the attribute is consumed.
// CHECK-LABEL: func.func @classify(
// CHECK-NOT: attn.train
// CHECK-LABEL: func.func @classify_bwd(

// CHECK-LABEL: func.func @classify_step(
// CHECK-SAME: %[[X:.*]]: tensor<?x16xbf16> {attn.name = "x"}, %[[LABELS:.*]]: tensor<?xi32> {attn.name = "labels"},
// CHECK-SAME: %[[W:.*]]: tensor<8x16xf32> {attn.name = "w"}, %[[G:.*]]: tensor<16xf32> {attn.name = "g"},
// CHECK-SAME: %[[MW:.*]]: tensor<8x16xf32> {attn.name = "m_w"}, %[[MG:.*]]: tensor<16xf32> {attn.name = "m_g"},
// CHECK-SAME: %[[VW:.*]]: tensor<8x16xf32> {attn.name = "v_w"}, %[[VG:.*]]: tensor<16xf32> {attn.name = "v_g"},
// CHECK-SAME: %[[LR:.*]]: tensor<f32> {attn.name = "lr"}, %[[STEP:.*]]: tensor<f32> {attn.name = "step"}, %[[SCALE:.*]]: tensor<f32> {attn.name = "loss_scale"})
// CHECK-SAME: -> (tensor<f32> {attn.name = "loss"}, tensor<f32> {attn.name = "grad_norm"},
// CHECK-SAME: tensor<8x16xf32> {attn.name = "new_w"}, tensor<16xf32> {attn.name = "new_g"},
// CHECK-SAME: tensor<8x16xf32> {attn.name = "new_m_w"}, tensor<16xf32> {attn.name = "new_m_g"},
// CHECK-SAME: tensor<8x16xf32> {attn.name = "new_v_w"}, tensor<16xf32> {attn.name = "new_v_g"})
// CHECK-DAG: %[[WB:.*]] = attn.cast %[[W]] : tensor<8x16xf32> to tensor<8x16xbf16>
// CHECK-DAG: %[[GB:.*]] = attn.cast %[[G]] : tensor<16xf32> to tensor<16xbf16>
// CHECK: attn.rms_norm %[[X]], %[[GB]]
// CHECK: %[[LOSS:.*]] = attn.token_mean
// CHECK: attn.token_mean_grad %{{.*}}, %[[SCALE]]
// CHECK: %[[INV:.*]] = attn.elementwise %[[SCALE]] : tensor<f32> -> tensor<f32>
// CHECK: %[[SQW:.*]] = attn.elementwise %{{.*}}, %[[INV]] : tensor<8x16xbf16>, tensor<f32> -> tensor<8x16xf32>
// CHECK: %[[COLW:.*]] = attn.sum_rows %[[SQW]] : tensor<8x16xf32> -> tensor<16xf32>
// CHECK: %[[SQG:.*]] = attn.elementwise %{{.*}}, %[[INV]] : tensor<16xbf16>, tensor<f32> -> tensor<16xf32>
// CHECK: %[[ALL:.*]] = tensor.concat dim(0) %[[COLW]], %[[SQG]] : (tensor<16xf32>, tensor<16xf32>) -> tensor<32xf32>
// CHECK: %[[SS:.*]] = attn.sum_rows %[[ALL]] : tensor<32xf32> -> tensor<f32>
// CHECK: %[[S:.*]]:5 = attn.elementwise %[[SS]], %[[INV]], %[[STEP]] : tensor<f32>, tensor<f32>, tensor<f32> -> tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
// CHECK: math.sqrt
// CHECK: arith.minimumf
// CHECK: arith.cmpf one
// CHECK: math.powf
// CHECK: %[[UW:.*]]:3 = attn.elementwise %{{.*}}, %[[W]], %[[MW]], %[[VW]], %[[LR]], %[[S]]#1, %[[S]]#2, %[[S]]#3, %[[S]]#4 : tensor<8x16xbf16>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32> -> tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
// CHECK: %[[UG:.*]]:3 = attn.elementwise %{{.*}}, %[[G]], %[[MG]], %[[VG]], %[[LR]], %[[S]]#1, %[[S]]#2, %[[S]]#3, %[[S]]#4
// CHECK: return %[[LOSS]], %[[S]]#0, %[[UW]]#0, %[[UG]]#0, %[[UW]]#1, %[[UG]]#1, %[[UW]]#2, %[[UG]]#2
// The step split for micro-batches: _accumulate adds one micro-batch's
// gradients (its loss cotangent is loss_scale) to f32 sums, _apply is the
// step's update from those sums.
// CHECK-LABEL: func.func @classify_accumulate(
// CHECK-SAME: %[[AX:.*]]: tensor<?x16xbf16> {attn.name = "x"}, %{{.*}}: tensor<?xi32> {attn.name = "labels"},
// CHECK-SAME: %{{.*}}: tensor<8x16xf32> {attn.name = "w"}, %{{.*}}: tensor<16xf32> {attn.name = "g"},
// CHECK-SAME: %[[SUMW:.*]]: tensor<8x16xf32> {attn.name = "grad_w"}, %[[SUMG:.*]]: tensor<16xf32> {attn.name = "grad_g"},
// CHECK-SAME: %[[ASCALE:.*]]: tensor<f32> {attn.name = "loss_scale"})
// CHECK-SAME: -> (tensor<f32> {attn.name = "loss"}, tensor<8x16xf32> {attn.name = "new_grad_w"}, tensor<16xf32> {attn.name = "new_grad_g"})
// CHECK: %[[ALOSS:.*]] = attn.token_mean
// CHECK: attn.token_mean_grad %{{.*}}, %[[ASCALE]]
// CHECK: %[[NEWW:.*]] = attn.elementwise %[[SUMW]], %{{.*}} : tensor<8x16xf32>, tensor<8x16xbf16> -> tensor<8x16xf32>
// CHECK: arith.addf
// CHECK: %[[NEWG:.*]] = attn.elementwise %[[SUMG]], %{{.*}} : tensor<16xf32>, tensor<16xbf16> -> tensor<16xf32>
// CHECK: return %[[ALOSS]], %[[NEWW]], %[[NEWG]]

// CHECK-LABEL: func.func @classify_apply(
// CHECK-SAME: %{{.*}}: tensor<8x16xf32> {attn.name = "w"}, %{{.*}}: tensor<16xf32> {attn.name = "g"},
// CHECK-SAME: {attn.name = "m_w"}, %{{.*}} {attn.name = "m_g"}, %{{.*}} {attn.name = "v_w"}, %{{.*}} {attn.name = "v_g"},
// CHECK-SAME: %[[GW:.*]]: tensor<8x16xf32> {attn.name = "grad_w"}, %[[GG:.*]]: tensor<16xf32> {attn.name = "grad_g"},
// CHECK-SAME: {attn.name = "lr"}, %{{.*}} {attn.name = "step"}, %{{.*}} {attn.name = "loss_scale"})
// CHECK-SAME: -> (tensor<f32> {attn.name = "grad_norm"}, tensor<8x16xf32> {attn.name = "new_w"},
// CHECK: attn.elementwise %[[GW]], %{{.*}} : tensor<8x16xf32>, tensor<f32> -> tensor<8x16xf32>
// CHECK: attn.elementwise %[[GG]], %{{.*}} : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
// CHECK: attn.elementwise %[[GW]], %{{.*}} -> tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
// CHECK: attn.elementwise %[[GG]], %{{.*}} -> tensor<16xf32>, tensor<16xf32>, tensor<16xf32>

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

