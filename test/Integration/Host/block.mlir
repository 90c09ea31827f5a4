// Two Llama-style blocks stacked, forward and backward, in f32 on the
// host: RMSNorm, projections (attn.matmul), RoPE and head splitting
// (attn.split_heads), causal grouped-query attention (4 query heads over 2
// key/value heads of 8), attn.merge_heads, residuals and a SwiGLU MLP,
// against the fp64 reference (--check), and the derived gradients of x and
// all 18 weights against finite differences of the forward function
// (--gradcheck). Each projection is scaled by 1/sqrt(fan-in) inside the
// function, so that attn-run's N(0, 1) weights keep activations near unit
// size, where finite differences are accurate.
//
// RUN: attnc %s -o %t.attnpkg
// RUN: attn-run %t.attnpkg --fn block_stack --shape B=2 --shape N=21 --check | FileCheck %s --check-prefix=OUT
// RUN: attn-run %t.attnpkg --fn block_stack_bwd --shape B=2 --shape N=21 --check --gradcheck | FileCheck %s
// Every remat policy gives the same gradients.
// RUN: attnc %s --remat=none -o %t.none.attnpkg
// RUN: attn-run %t.none.attnpkg --fn block_stack_bwd --shape B=2 --shape N=21 --check --gradcheck | FileCheck %s
// RUN: attnc %s --remat=full -o %t.full.attnpkg
// RUN: attn-run %t.full.attnpkg --fn block_stack_bwd --shape B=2 --shape N=21 --check --gradcheck | FileCheck %s
// RUN: attnc %s --remat=selective -o %t.selective.attnpkg --explain 2>&1 | FileCheck %s --check-prefix=SELECTIVE
// RUN: attn-run %t.selective.attnpkg --fn block_stack_bwd --shape B=2 --shape N=21 --check --gradcheck | FileCheck %s
// Under a budget of 40 KiB at these extents, selective saves what costs
// most to recompute per byte (38.1 KiB of it); --explain counts the memory.
// RUN: attnc %s --remat=selective --remat-budget=40KiB --symbol B=2 --symbol N=21 -o %t.budget.attnpkg --explain 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: attn-run %t.budget.attnpkg --fn block_stack_bwd --shape B=2 --shape N=21 --check --gradcheck | FileCheck %s

// The selective policy reads the projections saved.
// SELECTIVE: block_stack_bwd: reads saved{{[0-9]+}} f32 [B, N, 48] saved by block_stack

// BUDGET: block_stack: memory: workspace {{.*}} (buffers live at once: at most {{.*}}), outputs {{.*}} (saved values 38.1 KiB); working set
// BUDGET: block_stack_bwd: reads saved_out f32 [B, 2, N, 8]
// BUDGET: block_stack_bwd: memory: workspace {{.*}}, outputs 65.8 KiB (saved values 0 B); working set

// OUT: out: rel_err {{.*}} ok

// CHECK: gradcheck: {{.*}} ok
// CHECK: dx: rel_err {{.*}} ok
// CHECK-COUNT-18: rel_err {{.*}} ok
// CHECK-NOT: rel_err

!qh = tensor<?x4x?x8xf32>
!kvh = tensor<?x2x?x8xf32>
!tab = tensor<?x4xf32>
func.func @block_stack(%x: tensor<?x?x32xf32>,
    %cos: !tab,
    %sin: !tab,
    %b1_g1: tensor<32xf32>,
    %b1_wq: tensor<32x32xf32>,
    %b1_wk: tensor<16x32xf32>,
    %b1_wv: tensor<16x32xf32>,
    %b1_wo: tensor<32x32xf32>,
    %b1_g2: tensor<32xf32>,
    %b1_wg: tensor<48x32xf32>,
    %b1_wu: tensor<48x32xf32>,
    %b1_wd: tensor<32x48xf32>,
    %b2_g1: tensor<32xf32>,
    %b2_wq: tensor<32x32xf32>,
    %b2_wk: tensor<16x32xf32>,
    %b2_wv: tensor<16x32xf32>,
    %b2_wo: tensor<32x32xf32>,
    %b2_g2: tensor<32xf32>,
    %b2_wg: tensor<48x32xf32>,
    %b2_wu: tensor<48x32xf32>,
    %b2_wd: tensor<32x48xf32>)
    -> tensor<?x?x32xf32> attributes {attn.backward} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %x, %c0 : tensor<?x?x32xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?x32xf32>
  %one_s = arith.constant 1.0 : f32
  %b1_n1, %b1_r1 = attn.rms_norm %x, %b1_g1 {epsilon = 1.0e-05 : f32}
      : tensor<?x?x32xf32>, tensor<32xf32> -> tensor<?x?x32xf32>, tensor<?x?xf32>
  %b1_q_raw = attn.matmul %b1_n1, %b1_wq {transpose_b}
      : tensor<?x?x32xf32>, tensor<32x32xf32> -> tensor<?x?x32xf32>
  %b1_q_s = arith.constant 0.176776695 : f32
  %b1_q_c = tensor.splat %b1_q_s[%b, %n] : tensor<?x?x32xf32>
  %b1_q = arith.mulf %b1_q_raw, %b1_q_c : tensor<?x?x32xf32>
  %b1_k_raw = attn.matmul %b1_n1, %b1_wk {transpose_b}
      : tensor<?x?x32xf32>, tensor<16x32xf32> -> tensor<?x?x16xf32>
  %b1_k_s = arith.constant 0.176776695 : f32
  %b1_k_c = tensor.splat %b1_k_s[%b, %n] : tensor<?x?x16xf32>
  %b1_k = arith.mulf %b1_k_raw, %b1_k_c : tensor<?x?x16xf32>
  %b1_v_raw = attn.matmul %b1_n1, %b1_wv {transpose_b}
      : tensor<?x?x32xf32>, tensor<16x32xf32> -> tensor<?x?x16xf32>
  %b1_v_s = arith.constant 0.176776695 : f32
  %b1_v_c = tensor.splat %b1_v_s[%b, %n] : tensor<?x?x16xf32>
  %b1_v = arith.mulf %b1_v_raw, %b1_v_c : tensor<?x?x16xf32>
  %b1_qh = attn.split_heads %b1_q, %cos, %sin : tensor<?x?x32xf32>, !tab, !tab -> !qh
  %b1_kh = attn.split_heads %b1_k, %cos, %sin : tensor<?x?x16xf32>, !tab, !tab -> !kvh
  %b1_vh = attn.split_heads %b1_v : tensor<?x?x16xf32> -> !kvh
  %b1_o, %b1_lse = attn.attention %b1_qh, %b1_kh, %b1_vh {causal}
      : !qh, !kvh, !kvh -> !qh, tensor<?x4x?xf32>
  %b1_om = attn.merge_heads %b1_o : !qh -> tensor<?x?x32xf32>
  %b1_proj_raw = attn.matmul %b1_om, %b1_wo {transpose_b}
      : tensor<?x?x32xf32>, tensor<32x32xf32> -> tensor<?x?x32xf32>
  %b1_proj_s = arith.constant 0.176776695 : f32
  %b1_proj_c = tensor.splat %b1_proj_s[%b, %n] : tensor<?x?x32xf32>
  %b1_proj = arith.mulf %b1_proj_raw, %b1_proj_c : tensor<?x?x32xf32>
  %b1_h = arith.addf %x, %b1_proj : tensor<?x?x32xf32>
  %b1_n2, %b1_r2 = attn.rms_norm %b1_h, %b1_g2 {epsilon = 1.0e-05 : f32}
      : tensor<?x?x32xf32>, tensor<32xf32> -> tensor<?x?x32xf32>, tensor<?x?xf32>
  %b1_gate_raw = attn.matmul %b1_n2, %b1_wg {transpose_b}
      : tensor<?x?x32xf32>, tensor<48x32xf32> -> tensor<?x?x48xf32>
  %b1_gate_s = arith.constant 0.176776695 : f32
  %b1_gate_c = tensor.splat %b1_gate_s[%b, %n] : tensor<?x?x48xf32>
  %b1_gate = arith.mulf %b1_gate_raw, %b1_gate_c : tensor<?x?x48xf32>
  %b1_up_raw = attn.matmul %b1_n2, %b1_wu {transpose_b}
      : tensor<?x?x32xf32>, tensor<48x32xf32> -> tensor<?x?x48xf32>
  %b1_up_s = arith.constant 0.176776695 : f32
  %b1_up_c = tensor.splat %b1_up_s[%b, %n] : tensor<?x?x48xf32>
  %b1_up = arith.mulf %b1_up_raw, %b1_up_c : tensor<?x?x48xf32>
  %b1_ones = tensor.splat %one_s[%b, %n] : tensor<?x?x48xf32>
  %b1_neg = arith.negf %b1_gate : tensor<?x?x48xf32>
  %b1_e = math.exp %b1_neg : tensor<?x?x48xf32>
  %b1_den = arith.addf %b1_ones, %b1_e : tensor<?x?x48xf32>
  %b1_silu = arith.divf %b1_gate, %b1_den : tensor<?x?x48xf32>
  %b1_act = arith.mulf %b1_silu, %b1_up : tensor<?x?x48xf32>
  %b1_down_raw = attn.matmul %b1_act, %b1_wd {transpose_b}
      : tensor<?x?x48xf32>, tensor<32x48xf32> -> tensor<?x?x32xf32>
  %b1_down_s = arith.constant 0.144337567 : f32
  %b1_down_c = tensor.splat %b1_down_s[%b, %n] : tensor<?x?x32xf32>
  %b1_down = arith.mulf %b1_down_raw, %b1_down_c : tensor<?x?x32xf32>
  %b1_y = arith.addf %b1_h, %b1_down : tensor<?x?x32xf32>
  %b2_n1, %b2_r1 = attn.rms_norm %b1_y, %b2_g1 {epsilon = 1.0e-05 : f32}
      : tensor<?x?x32xf32>, tensor<32xf32> -> tensor<?x?x32xf32>, tensor<?x?xf32>
  %b2_q_raw = attn.matmul %b2_n1, %b2_wq {transpose_b}
      : tensor<?x?x32xf32>, tensor<32x32xf32> -> tensor<?x?x32xf32>
  %b2_q_s = arith.constant 0.176776695 : f32
  %b2_q_c = tensor.splat %b2_q_s[%b, %n] : tensor<?x?x32xf32>
  %b2_q = arith.mulf %b2_q_raw, %b2_q_c : tensor<?x?x32xf32>
  %b2_k_raw = attn.matmul %b2_n1, %b2_wk {transpose_b}
      : tensor<?x?x32xf32>, tensor<16x32xf32> -> tensor<?x?x16xf32>
  %b2_k_s = arith.constant 0.176776695 : f32
  %b2_k_c = tensor.splat %b2_k_s[%b, %n] : tensor<?x?x16xf32>
  %b2_k = arith.mulf %b2_k_raw, %b2_k_c : tensor<?x?x16xf32>
  %b2_v_raw = attn.matmul %b2_n1, %b2_wv {transpose_b}
      : tensor<?x?x32xf32>, tensor<16x32xf32> -> tensor<?x?x16xf32>
  %b2_v_s = arith.constant 0.176776695 : f32
  %b2_v_c = tensor.splat %b2_v_s[%b, %n] : tensor<?x?x16xf32>
  %b2_v = arith.mulf %b2_v_raw, %b2_v_c : tensor<?x?x16xf32>
  %b2_qh = attn.split_heads %b2_q, %cos, %sin : tensor<?x?x32xf32>, !tab, !tab -> !qh
  %b2_kh = attn.split_heads %b2_k, %cos, %sin : tensor<?x?x16xf32>, !tab, !tab -> !kvh
  %b2_vh = attn.split_heads %b2_v : tensor<?x?x16xf32> -> !kvh
  %b2_o, %b2_lse = attn.attention %b2_qh, %b2_kh, %b2_vh {causal}
      : !qh, !kvh, !kvh -> !qh, tensor<?x4x?xf32>
  %b2_om = attn.merge_heads %b2_o : !qh -> tensor<?x?x32xf32>
  %b2_proj_raw = attn.matmul %b2_om, %b2_wo {transpose_b}
      : tensor<?x?x32xf32>, tensor<32x32xf32> -> tensor<?x?x32xf32>
  %b2_proj_s = arith.constant 0.176776695 : f32
  %b2_proj_c = tensor.splat %b2_proj_s[%b, %n] : tensor<?x?x32xf32>
  %b2_proj = arith.mulf %b2_proj_raw, %b2_proj_c : tensor<?x?x32xf32>
  %b2_h = arith.addf %b1_y, %b2_proj : tensor<?x?x32xf32>
  %b2_n2, %b2_r2 = attn.rms_norm %b2_h, %b2_g2 {epsilon = 1.0e-05 : f32}
      : tensor<?x?x32xf32>, tensor<32xf32> -> tensor<?x?x32xf32>, tensor<?x?xf32>
  %b2_gate_raw = attn.matmul %b2_n2, %b2_wg {transpose_b}
      : tensor<?x?x32xf32>, tensor<48x32xf32> -> tensor<?x?x48xf32>
  %b2_gate_s = arith.constant 0.176776695 : f32
  %b2_gate_c = tensor.splat %b2_gate_s[%b, %n] : tensor<?x?x48xf32>
  %b2_gate = arith.mulf %b2_gate_raw, %b2_gate_c : tensor<?x?x48xf32>
  %b2_up_raw = attn.matmul %b2_n2, %b2_wu {transpose_b}
      : tensor<?x?x32xf32>, tensor<48x32xf32> -> tensor<?x?x48xf32>
  %b2_up_s = arith.constant 0.176776695 : f32
  %b2_up_c = tensor.splat %b2_up_s[%b, %n] : tensor<?x?x48xf32>
  %b2_up = arith.mulf %b2_up_raw, %b2_up_c : tensor<?x?x48xf32>
  %b2_ones = tensor.splat %one_s[%b, %n] : tensor<?x?x48xf32>
  %b2_neg = arith.negf %b2_gate : tensor<?x?x48xf32>
  %b2_e = math.exp %b2_neg : tensor<?x?x48xf32>
  %b2_den = arith.addf %b2_ones, %b2_e : tensor<?x?x48xf32>
  %b2_silu = arith.divf %b2_gate, %b2_den : tensor<?x?x48xf32>
  %b2_act = arith.mulf %b2_silu, %b2_up : tensor<?x?x48xf32>
  %b2_down_raw = attn.matmul %b2_act, %b2_wd {transpose_b}
      : tensor<?x?x48xf32>, tensor<32x48xf32> -> tensor<?x?x32xf32>
  %b2_down_s = arith.constant 0.144337567 : f32
  %b2_down_c = tensor.splat %b2_down_s[%b, %n] : tensor<?x?x32xf32>
  %b2_down = arith.mulf %b2_down_raw, %b2_down_c : tensor<?x?x32xf32>
  %b2_y = arith.addf %b2_h, %b2_down : tensor<?x?x32xf32>
  return %b2_y : tensor<?x?x32xf32>
}
