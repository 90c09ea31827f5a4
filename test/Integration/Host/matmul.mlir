// attn.matmul on the host: linear layers in both weight layouts and the
// row contraction of weight gradients, checked against the fp64 reference,
// and their derived gradients against finite differences of the forward
// function (--gradcheck).
//
// RUN: attnc %s -o %t.attnpkg --explain 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: attn-run %t.attnpkg --fn linear --shape d0_0=3 --shape d0_1=37 --check | FileCheck %s --check-prefix=OUT
// RUN: attn-run %t.attnpkg --fn linear_bwd --shape d0_0=3 --shape d0_1=37 --check --gradcheck | FileCheck %s --check-prefix=LINEAR
// RUN: attn-run %t.attnpkg --fn mlp --shape d0_0=2 --shape d0_1=45 --check | FileCheck %s --check-prefix=OUT
// RUN: attn-run %t.attnpkg --fn mlp_bwd --shape d0_0=2 --shape d0_1=45 --check --gradcheck | FileCheck %s --check-prefix=MLP
// RUN: attn-run %t.attnpkg --fn contract_rows --shape d0_0=70 --check | FileCheck %s --check-prefix=OUT
// RUN: attn-run %t.attnpkg --fn accumulate_rows --shape d0_0=70 --check | FileCheck %s --check-prefix=OUT
// RUN: attn-run %t.attnpkg --fn residual --shape d0_0=2 --shape d0_1=29 --check | FileCheck %s --check-prefix=OUT
// RUN: attn-run %t.attnpkg --fn residual_bwd --shape d0_0=2 --shape d0_1=29 --check --gradcheck | FileCheck %s --check-prefix=RESIDUAL
// RUN: attn-run %t.attnpkg --fn gelu_layer --shape d0_0=2 --shape d0_1=29 --check | FileCheck %s --check-prefix=OUT
// RUN: attn-run %t.attnpkg --fn gelu_layer_bwd --shape d0_0=2 --shape d0_1=29 --check --gradcheck | FileCheck %s --check-prefix=GELU
// Directions along which the terms of gelu_layer_bwd's directional
// derivative cancel to 1e-3 of their size: they failed while the
// reference's GELU had other constants than the kernels' f32 ones and the
// error was relative to the sum alone.
// RUN: attn-run %t.attnpkg --fn gelu_layer_bwd --shape d0_0=2 --shape d0_1=29 --gradcheck --seed 372 | FileCheck %s --check-prefix=CANCELS
// RUN: attn-run %t.attnpkg --fn gelu_layer_bwd --shape d0_0=2 --shape d0_1=29 --gradcheck --seed 374 | FileCheck %s --check-prefix=CANCELS
// RUN: attn-run %t.attnpkg --fn gelu_written --shape d0_0=33 --check | FileCheck %s --check-prefix=OUT
// RUN: attn-run %t.attnpkg --fn long_k --shape d0_0=37 --check | FileCheck %s --check-prefix=LONG
// RUN: attn-run %t.attnpkg --fn long_k_bwd --shape d0_0=300 --check --gradcheck | FileCheck %s --check-prefix=LONG-BWD

// EXPLAIN-DAG: linear: kernel linear_matmul0,
// EXPLAIN-DAG: linear_bwd: kernel linear_bwd_matmul0,
// EXPLAIN-DAG: linear_bwd: kernel linear_bwd_matmul1,
// The MLP's residual add is its down projection's addend.
// EXPLAIN-DAG: mlp: kernel mlp_elementwise2, {{.*}}; computes elementwise: negf exp addf divf mulf
// EXPLAIN-DAG: mlp: kernel mlp_matmul3, {{.*}}; computes matmul + addend x
// EXPLAIN-NOT: mlp: kernel mlp_elementwise4
// EXPLAIN-DAG: residual: kernel residual_matmul0, {{.*}}; computes matmul + bias b + addend r
// GELU in the epilogue, written there or found in an attn.elementwise.
// EXPLAIN-DAG: gelu_layer: kernel gelu_layer_matmul0, {{.*}}; computes matmul + bias b, gelu_tanh
// EXPLAIN-DAG: gelu_written: kernel gelu_written_matmul0, {{.*}}; computes matmul + bias b, gelu_tanh
// EXPLAIN-NOT: gelu_written: kernel gelu_written_elementwise

// OUT: out: rel_err {{.*}} ok

// LINEAR: gradcheck: {{.*}} ok
// LINEAR: dx: rel_err {{.*}} ok
// LINEAR-NEXT: dw: rel_err {{.*}} ok

// RESIDUAL: gradcheck: {{.*}} ok
// RESIDUAL: dx: rel_err {{.*}} ok
// RESIDUAL-NEXT: dw: rel_err {{.*}} ok
// RESIDUAL-NEXT: db: rel_err {{.*}} ok
// RESIDUAL-NEXT: dr: rel_err {{.*}} ok

// GELU: gradcheck: {{.*}} ok
// GELU: dx: rel_err {{.*}} ok
// GELU-NEXT: dw: rel_err {{.*}} ok
// GELU-NEXT: db: rel_err {{.*}} ok

// CANCELS: seed: 37{{[24]}}
// CANCELS: gradcheck: {{.*}} ok

// LONG: out: rel_err {{.*}} ok
// LONG-NEXT: result1: rel_err {{.*}} ok

// LONG-BWD: gradcheck: {{.*}} ok
// LONG-BWD: dx: rel_err {{.*}} ok
// LONG-BWD-NEXT: dw: rel_err {{.*}} ok
// LONG-BWD-NEXT: dwt: rel_err {{.*}} ok

// MLP: gradcheck: {{.*}} ok
// MLP: dx: rel_err {{.*}} ok
// MLP-NEXT: dwg: rel_err {{.*}} ok
// MLP-NEXT: dwu: rel_err {{.*}} ok
// MLP-NEXT: dwd: rel_err {{.*}} ok

// A projection with nn.Linear's weight layout [N, K], in f32.
func.func @linear(%x: tensor<?x?x48xf32>, %w: tensor<80x48xf32>)
    -> tensor<?x?x80xf32> attributes {attn.backward} {
  %y = attn.matmul %x, %w {transpose_b}
      : tensor<?x?x48xf32>, tensor<80x48xf32> -> tensor<?x?x80xf32>
  return %y : tensor<?x?x80xf32>
}

// A SwiGLU MLP in bf16 with a residual: weights [K, N] for the gate and up
// projections, [N, K] for the down projection.
func.func @mlp(%x: tensor<?x?x32xbf16>, %wg: tensor<32x72xbf16>,
               %wu: tensor<32x72xbf16>, %wd: tensor<32x72xbf16>)
    -> tensor<?x?x32xbf16> attributes {attn.backward} {
  %g = attn.matmul %x, %wg
      : tensor<?x?x32xbf16>, tensor<32x72xbf16> -> tensor<?x?x72xbf16>
  %u = attn.matmul %x, %wu
      : tensor<?x?x32xbf16>, tensor<32x72xbf16> -> tensor<?x?x72xbf16>
  %ng = arith.negf %g : tensor<?x?x72xbf16>
  %e = math.exp %ng : tensor<?x?x72xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %g, %c0 : tensor<?x?x72xbf16>
  %d1 = tensor.dim %g, %c1 : tensor<?x?x72xbf16>
  %one = arith.constant 1.0 : bf16
  %ones = tensor.splat %one[%d0, %d1] : tensor<?x?x72xbf16>
  %den = arith.addf %e, %ones : tensor<?x?x72xbf16>
  %silu = arith.divf %g, %den : tensor<?x?x72xbf16>
  %h = arith.mulf %silu, %u : tensor<?x?x72xbf16>
  %d = attn.matmul %h, %wd {transpose_b}
      : tensor<?x?x72xbf16>, tensor<32x72xbf16> -> tensor<?x?x32xbf16>
  %y = arith.addf %x, %d : tensor<?x?x32xbf16>
  return %y : tensor<?x?x32xbf16>
}

// A linear layer with a bias and an addend in its epilogue, in bf16.
func.func @residual(%x: tensor<?x?x24xbf16>, %w: tensor<40x24xbf16>,
                    %b: tensor<40xbf16>, %r: tensor<?x?x40xbf16>)
    -> tensor<?x?x40xbf16> attributes {attn.backward} {
  %y = attn.matmul %x, %w, %b + %r {transpose_b}
      : tensor<?x?x24xbf16>, tensor<40x24xbf16>, tensor<40xbf16> + tensor<?x?x40xbf16>
      -> tensor<?x?x40xbf16>
  return %y : tensor<?x?x40xbf16>
}

// A linear layer with GELU in its epilogue, in f32: its gradient is that of
// the unfused form.
func.func @gelu_layer(%x: tensor<?x?x24xf32>, %w: tensor<40x24xf32>,
                      %b: tensor<40xf32>) -> tensor<?x?x40xf32>
    attributes {attn.backward} {
  %y = attn.matmul %x, %w, %b {activation = "gelu_tanh", transpose_b}
      : tensor<?x?x24xf32>, tensor<40x24xf32>, tensor<40xf32> -> tensor<?x?x40xf32>
  return %y : tensor<?x?x40xf32>
}

// The same in bf16, GELU written as an attn.elementwise body, which
// attn-fuse-activations moves into the matmul.
func.func @gelu_written(%x: tensor<?x24xbf16>, %w: tensor<40x24xbf16>,
                        %b: tensor<40xbf16>) -> tensor<?x40xbf16> {
  %f0 = attn.matmul %x, %w, %b {transpose_b}
      : tensor<?x24xbf16>, tensor<40x24xbf16>, tensor<40xbf16> -> tensor<?x40xbf16>
  %f = attn.elementwise %f0 : tensor<?x40xbf16> -> tensor<?x40xbf16> {
  ^bb0(%u: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %cubic = arith.constant 0.044715 : f32
    %scale = arith.constant 0.7978845608 : f32
    %u2 = arith.mulf %u, %u : f32
    %u3 = arith.mulf %u2, %u : f32
    %cu3 = arith.mulf %u3, %cubic : f32
    %inner = arith.addf %cu3, %u : f32
    %arg = arith.mulf %scale, %inner : f32
    %t = math.tanh %arg : f32
    %onet = arith.addf %t, %one : f32
    %hu = arith.mulf %u, %half : f32
    %gelu = arith.mulf %hu, %onet : f32
    attn.yield %gelu : f32
  }
  return %f : tensor<?x40xbf16>
}

// A weight gradient's row contraction, accumulated in f32 from bf16.
func.func @contract_rows(%a: tensor<?x24xbf16>, %b: tensor<?x40xbf16>)
    -> tensor<24x40xf32> {
  %c = attn.matmul %a, %b {transpose_a}
      : tensor<?x24xbf16>, tensor<?x40xbf16> -> tensor<24x40xf32>
  return %c : tensor<24x40xf32>
}

// A row contraction that accumulates into a weight gradient (its addend).
func.func @accumulate_rows(%a: tensor<?x24xbf16>, %b: tensor<?x40xbf16>,
                           %acc: tensor<24x40xf32>) -> tensor<24x40xf32> {
  %c = attn.matmul %a, %b + %acc {transpose_a}
      : tensor<?x24xbf16>, tensor<?x40xbf16> + tensor<24x40xf32> -> tensor<24x40xf32>
  return %c : tensor<24x40xf32>
}

// Contractions longer than a pass of the host's rank-1 updates (128 rows of
// b) and than a whole number of its 8-lane dot product chunks: K = 300 in
// both weight layouts, 40 columns (two 16-column chunks and 8 left to the
// scalar loops); the backward's row contractions run over 300 rows.
func.func @long_k(%x: tensor<?x300xbf16>, %w: tensor<300x40xbf16>,
                  %wt: tensor<40x300xbf16>)
    -> (tensor<?x40xbf16>, tensor<?x40xbf16>)
    attributes {attn.backward} {
  %y = attn.matmul %x, %w
      : tensor<?x300xbf16>, tensor<300x40xbf16> -> tensor<?x40xbf16>
  %z = attn.matmul %x, %wt {transpose_b}
      : tensor<?x300xbf16>, tensor<40x300xbf16> -> tensor<?x40xbf16>
  return %y, %z : tensor<?x40xbf16>, tensor<?x40xbf16>
}
