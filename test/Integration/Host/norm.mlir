// RMSNorm and LayerNorm on the host: their forward and gradient kernels
// against the fp64 reference, and the derived gradients against finite
// differences of the forward function (--gradcheck): alone, and as the
// pre-norm of a projection with a residual.
//
// RUN: attnc %s -o %t.attnpkg --explain 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: attn-run %t.attnpkg --fn rms_norm --shape d0_0=3 --shape d0_1=29 --check | FileCheck %s --check-prefix=OUT
// RUN: attn-run %t.attnpkg --fn rms_norm_bwd --shape d0_0=3 --shape d0_1=29 --check --gradcheck | FileCheck %s --check-prefix=NORM
// RUN: attn-run %t.attnpkg --fn pre_norm --shape d0_0=37 --check | FileCheck %s --check-prefix=OUT
// RUN: attn-run %t.attnpkg --fn pre_norm_bwd --shape d0_0=37 --check --gradcheck | FileCheck %s --check-prefix=PRE
// RUN: attn-run %t.attnpkg --fn mixed_pre_norm --shape d0_0=37 --check | FileCheck %s --check-prefix=OUT
// RUN: attn-run %t.attnpkg --fn mixed_pre_norm_bwd --shape d0_0=37 --check --gradcheck | FileCheck %s --check-prefix=PRE
// RUN: attn-run %t.attnpkg --fn layer_norm_bwd --shape d0_0=3 --shape d0_1=29 --check --gradcheck | FileCheck %s --check-prefix=LAYER
// RUN: attn-run %t.attnpkg --fn pre_layer_norm --shape d0_0=37 --check | FileCheck %s --check-prefix=OUT
// RUN: attn-run %t.attnpkg --fn pre_layer_norm_bwd --shape d0_0=37 --check --gradcheck | FileCheck %s --check-prefix=PRELAYER
// Rows of 30 split into no 8-column chunks: the element-by-element kernels.
// RUN: attn-run %t.attnpkg --fn rms_norm_odd_bwd --shape d0_0=13 --check --gradcheck | FileCheck %s --check-prefix=NORM
// RUN: attn-run %t.attnpkg --fn layer_norm_odd_bwd --shape d0_0=13 --check --gradcheck | FileCheck %s --check-prefix=LAYER
// RUN: attn-run %t.attnpkg --fn total --check | FileCheck %s --check-prefix=OUT
// RUN: attn-run %t.attnpkg --fn sum_squares --shape d0_0=45 --check | FileCheck %s --check-prefix=SQUARES

// Every remat policy gives the same gradients.
// RUN: attnc %s --remat=none -o %t.none.attnpkg
// RUN: attn-run %t.none.attnpkg --fn pre_norm_bwd --shape d0_0=37 --check --gradcheck | FileCheck %s --check-prefix=PRE

// The weight's gradient is a kernel of partial sums and their row sum.
// EXPLAIN-DAG: rms_norm_bwd: kernel rms_norm_bwd_rms_norm0,
// EXPLAIN-DAG: rms_norm_bwd: kernel rms_norm_bwd_rms_norm_grad1,
// EXPLAIN-DAG: rms_norm_bwd: kernel rms_norm_bwd_sum_rows2,

// The residual stream's cotangent joins dx in the norm gradient's kernel.
// EXPLAIN-DAG: pre_norm_bwd: kernel {{.*}}; computes rms_norm_grad + addend

// Mixed precision: the norm rounds straight to the matmul's bf16 and its
// gradient reads the bf16 cotangent; the residual add reads the bf16
// projection. The kernels' numbers show that no cast kernel is left between
// them; the backward keeps one, the f32 cotangent narrowed for the bf16
// matmuls.
// EXPLAIN-DAG: mixed_pre_norm: kernel mixed_pre_norm_rms_norm0,
// EXPLAIN-DAG: mixed_pre_norm: kernel mixed_pre_norm_matmul1,
// EXPLAIN-DAG: mixed_pre_norm: kernel mixed_pre_norm_elementwise2,
// EXPLAIN-DAG: mixed_pre_norm_bwd: kernel mixed_pre_norm_bwd_cast0,
// EXPLAIN-DAG: mixed_pre_norm_bwd: kernel mixed_pre_norm_bwd_rms_norm_grad4,

// The bias's gradient is the row sum of the cotangent.
// EXPLAIN-DAG: layer_norm_bwd: kernel layer_norm_bwd_layer_norm_grad1,
// EXPLAIN-DAG: layer_norm_bwd: kernel layer_norm_bwd_sum_rows3,

// OUT: out: rel_err {{.*}} ok

// LAYER: gradcheck: {{.*}} ok
// LAYER: dx: rel_err {{.*}} ok
// LAYER-NEXT: dw: rel_err {{.*}} ok
// LAYER-NEXT: dbias: rel_err {{.*}} ok

// PRELAYER: gradcheck: {{.*}} ok
// PRELAYER: dx: rel_err {{.*}} ok
// PRELAYER-NEXT: dg: rel_err {{.*}} ok
// PRELAYER-NEXT: dw: rel_err {{.*}} ok
// PRELAYER-NEXT: dbias: rel_err {{.*}} ok

// NORM: gradcheck: {{.*}} ok
// NORM: dx: rel_err {{.*}} ok
// NORM-NEXT: dw: rel_err {{.*}} ok

// PRE: gradcheck: {{.*}} ok
// PRE: dx: rel_err {{.*}} ok
// PRE-NEXT: dg: rel_err {{.*}} ok
// PRE-NEXT: dw: rel_err {{.*}} ok

// RMSNorm and LayerNorm of bf16 rows of 30.
func.func @rms_norm_odd(%x: tensor<?x30xbf16>, %w: tensor<30xbf16>)
    -> tensor<?x30xbf16> attributes {attn.backward} {
  %y, %rstd = attn.rms_norm %x, %w {epsilon = 1.0e-05 : f32}
      : tensor<?x30xbf16>, tensor<30xbf16> -> tensor<?x30xbf16>, tensor<?xf32>
  return %y : tensor<?x30xbf16>
}

func.func @layer_norm_odd(%x: tensor<?x30xbf16>, %w: tensor<30xbf16>,
                          %bias: tensor<30xbf16>)
    -> tensor<?x30xbf16> attributes {attn.backward} {
  %y, %rstd = attn.layer_norm %x, %w, %bias {epsilon = 1.0e-05 : f32}
      : tensor<?x30xbf16>, tensor<30xbf16>, tensor<30xbf16>
      -> tensor<?x30xbf16>, tensor<?xf32>
  return %y : tensor<?x30xbf16>
}

// RMSNorm of f32 rows of 40 with an f32 weight; only out is returned.
func.func @rms_norm(%x: tensor<?x?x40xf32>, %w: tensor<40xf32>)
    -> tensor<?x?x40xf32> attributes {attn.backward} {
  %y, %rstd = attn.rms_norm %x, %w {epsilon = 1.0e-05 : f32}
      : tensor<?x?x40xf32>, tensor<40xf32> -> tensor<?x?x40xf32>, tensor<?x?xf32>
  return %y : tensor<?x?x40xf32>
}

// x + (rms_norm(x) w_proj^T) in bf16, rows of 48.
func.func @pre_norm(%x: tensor<?x48xbf16>, %g: tensor<48xbf16>,
                    %w: tensor<48x48xbf16>) -> tensor<?x48xbf16>
    attributes {attn.backward} {
  %h, %rstd = attn.rms_norm %x, %g {epsilon = 1.0e-06 : f32}
      : tensor<?x48xbf16>, tensor<48xbf16> -> tensor<?x48xbf16>, tensor<?xf32>
  %p = attn.matmul %h, %w {transpose_b}
      : tensor<?x48xbf16>, tensor<48x48xbf16> -> tensor<?x48xbf16>
  %y = arith.addf %x, %p : tensor<?x48xbf16>
  return %y : tensor<?x48xbf16>
}

// The same with the residual stream in f32 and the projection in bf16.
func.func @mixed_pre_norm(%x: tensor<?x48xf32>, %g: tensor<48xf32>,
                          %w: tensor<48x48xbf16>) -> tensor<?x48xf32>
    attributes {attn.backward} {
  %h, %rstd = attn.rms_norm %x, %g {epsilon = 1.0e-06 : f32}
      : tensor<?x48xf32>, tensor<48xf32> -> tensor<?x48xf32>, tensor<?xf32>
  %hb = attn.cast %h : tensor<?x48xf32> to tensor<?x48xbf16>
  %p = attn.matmul %hb, %w {transpose_b}
      : tensor<?x48xbf16>, tensor<48x48xbf16> -> tensor<?x48xbf16>
  %pw = attn.cast %p : tensor<?x48xbf16> to tensor<?x48xf32>
  %y = arith.addf %x, %pw : tensor<?x48xf32>
  return %y : tensor<?x48xf32>
}

// LayerNorm of f32 rows of 40 with an f32 weight and bias.
func.func @layer_norm(%x: tensor<?x?x40xf32>, %w: tensor<40xf32>,
                      %bias: tensor<40xf32>) -> tensor<?x?x40xf32>
    attributes {attn.backward} {
  %y, %rstd = attn.layer_norm %x, %w, %bias {epsilon = 1.0e-05 : f32}
      : tensor<?x?x40xf32>, tensor<40xf32>, tensor<40xf32>
      -> tensor<?x?x40xf32>, tensor<?x?xf32>
  return %y : tensor<?x?x40xf32>
}

// x + (layer_norm(x) w^T + bias) in bf16, rows of 48 (GPT-2's sublayer).
func.func @pre_layer_norm(%x: tensor<?x48xbf16>, %g: tensor<48xbf16>,
                          %w: tensor<48x48xbf16>, %bias: tensor<48xbf16>)
    -> tensor<?x48xbf16> attributes {attn.backward} {
  %h, %rstd = attn.layer_norm %x, %g {epsilon = 1.0e-05 : f32}
      : tensor<?x48xbf16>, tensor<48xbf16> -> tensor<?x48xbf16>, tensor<?xf32>
  %p = attn.matmul %h, %w, %bias {transpose_b}
      : tensor<?x48xbf16>, tensor<48x48xbf16>, tensor<48xbf16> -> tensor<?x48xbf16>
  %y = arith.addf %x, %p : tensor<?x48xbf16>
  return %y : tensor<?x48xbf16>
}

// The sum of a vector's elements (a squared gradient norm's last step):
// rows of one column.
func.func @total(%x: tensor<1000xf32>) -> tensor<f32> {
  %s = attn.sum_rows %x : tensor<1000xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// Sums of squares (a gradient norm's): each element squared as it is read,
// by columns, then over a vector.
// SQUARES: columns: rel_err {{.*}} ok
// SQUARES: all: rel_err {{.*}} ok
func.func @sum_squares(%x: tensor<?x70xbf16>)
    -> (tensor<70xf32> {attn.name = "columns"}, tensor<f32> {attn.name = "all"}) {
  %c = attn.sum_rows %x {squares} : tensor<?x70xbf16> -> tensor<70xf32>
  %t = attn.sum_rows %c {squares} : tensor<70xf32> -> tensor<f32>
  return %c, %t : tensor<70xf32>, tensor<f32>
}
