// A GPT-2-small-sized decoder language model for training on the GPU, in
// bf16 with f32 master weights: token embedding tied to the LM head
// (GPT-2's vocabulary padded to 50304), twelve pre-norm blocks of width
// 768 (RMSNorm, causal attention of 12 heads of 64 without positional
// embeddings, a SwiGLU MLP of 2048), a final RMSNorm and the mean
// cross-entropy of the next token: 123.6M parameters. `attn.train` asks
// for the training step `@gpt_125m_step` (AdamW with betas 0.9 and 0.95,
// weight decay 0.1 on matrices, gradients clipped to norm 1).
// bench/train_gpt.py is the same model in PyTorch. Written by
// scripts/make-gpt.py gpt_125m --d-model 768 --heads 12 --ffn 2048
// --layers 12 --vocab 50304 --dtype bf16.
//
// The main job's short run fits the host too; on an H200 train it with
// e.g. --batch 16 --seq 1024 --steps 200 --lr 6e-4 --warmup 20.
//
// EXAMPLE-TRAIN: --steps 3 --batch 2 --seq 64 --lr 6e-4 --log-every 1
func.func @gpt_125m(%ids: tensor<?x?xi32>,
    %labels: tensor<?x?xi32>,
    %wte: tensor<50304x768xbf16>,
    %g1_0: tensor<768xbf16>,
    %wq_0: tensor<768x768xbf16>,
    %wk_0: tensor<768x768xbf16>,
    %wv_0: tensor<768x768xbf16>,
    %wo_0: tensor<768x768xbf16>,
    %g2_0: tensor<768xbf16>,
    %wg_0: tensor<2048x768xbf16>,
    %wu_0: tensor<2048x768xbf16>,
    %wd_0: tensor<768x2048xbf16>,
    %g1_1: tensor<768xbf16>,
    %wq_1: tensor<768x768xbf16>,
    %wk_1: tensor<768x768xbf16>,
    %wv_1: tensor<768x768xbf16>,
    %wo_1: tensor<768x768xbf16>,
    %g2_1: tensor<768xbf16>,
    %wg_1: tensor<2048x768xbf16>,
    %wu_1: tensor<2048x768xbf16>,
    %wd_1: tensor<768x2048xbf16>,
    %g1_2: tensor<768xbf16>,
    %wq_2: tensor<768x768xbf16>,
    %wk_2: tensor<768x768xbf16>,
    %wv_2: tensor<768x768xbf16>,
    %wo_2: tensor<768x768xbf16>,
    %g2_2: tensor<768xbf16>,
    %wg_2: tensor<2048x768xbf16>,
    %wu_2: tensor<2048x768xbf16>,
    %wd_2: tensor<768x2048xbf16>,
    %g1_3: tensor<768xbf16>,
    %wq_3: tensor<768x768xbf16>,
    %wk_3: tensor<768x768xbf16>,
    %wv_3: tensor<768x768xbf16>,
    %wo_3: tensor<768x768xbf16>,
    %g2_3: tensor<768xbf16>,
    %wg_3: tensor<2048x768xbf16>,
    %wu_3: tensor<2048x768xbf16>,
    %wd_3: tensor<768x2048xbf16>,
    %g1_4: tensor<768xbf16>,
    %wq_4: tensor<768x768xbf16>,
    %wk_4: tensor<768x768xbf16>,
    %wv_4: tensor<768x768xbf16>,
    %wo_4: tensor<768x768xbf16>,
    %g2_4: tensor<768xbf16>,
    %wg_4: tensor<2048x768xbf16>,
    %wu_4: tensor<2048x768xbf16>,
    %wd_4: tensor<768x2048xbf16>,
    %g1_5: tensor<768xbf16>,
    %wq_5: tensor<768x768xbf16>,
    %wk_5: tensor<768x768xbf16>,
    %wv_5: tensor<768x768xbf16>,
    %wo_5: tensor<768x768xbf16>,
    %g2_5: tensor<768xbf16>,
    %wg_5: tensor<2048x768xbf16>,
    %wu_5: tensor<2048x768xbf16>,
    %wd_5: tensor<768x2048xbf16>,
    %g1_6: tensor<768xbf16>,
    %wq_6: tensor<768x768xbf16>,
    %wk_6: tensor<768x768xbf16>,
    %wv_6: tensor<768x768xbf16>,
    %wo_6: tensor<768x768xbf16>,
    %g2_6: tensor<768xbf16>,
    %wg_6: tensor<2048x768xbf16>,
    %wu_6: tensor<2048x768xbf16>,
    %wd_6: tensor<768x2048xbf16>,
    %g1_7: tensor<768xbf16>,
    %wq_7: tensor<768x768xbf16>,
    %wk_7: tensor<768x768xbf16>,
    %wv_7: tensor<768x768xbf16>,
    %wo_7: tensor<768x768xbf16>,
    %g2_7: tensor<768xbf16>,
    %wg_7: tensor<2048x768xbf16>,
    %wu_7: tensor<2048x768xbf16>,
    %wd_7: tensor<768x2048xbf16>,
    %g1_8: tensor<768xbf16>,
    %wq_8: tensor<768x768xbf16>,
    %wk_8: tensor<768x768xbf16>,
    %wv_8: tensor<768x768xbf16>,
    %wo_8: tensor<768x768xbf16>,
    %g2_8: tensor<768xbf16>,
    %wg_8: tensor<2048x768xbf16>,
    %wu_8: tensor<2048x768xbf16>,
    %wd_8: tensor<768x2048xbf16>,
    %g1_9: tensor<768xbf16>,
    %wq_9: tensor<768x768xbf16>,
    %wk_9: tensor<768x768xbf16>,
    %wv_9: tensor<768x768xbf16>,
    %wo_9: tensor<768x768xbf16>,
    %g2_9: tensor<768xbf16>,
    %wg_9: tensor<2048x768xbf16>,
    %wu_9: tensor<2048x768xbf16>,
    %wd_9: tensor<768x2048xbf16>,
    %g1_10: tensor<768xbf16>,
    %wq_10: tensor<768x768xbf16>,
    %wk_10: tensor<768x768xbf16>,
    %wv_10: tensor<768x768xbf16>,
    %wo_10: tensor<768x768xbf16>,
    %g2_10: tensor<768xbf16>,
    %wg_10: tensor<2048x768xbf16>,
    %wu_10: tensor<2048x768xbf16>,
    %wd_10: tensor<768x2048xbf16>,
    %g1_11: tensor<768xbf16>,
    %wq_11: tensor<768x768xbf16>,
    %wk_11: tensor<768x768xbf16>,
    %wv_11: tensor<768x768xbf16>,
    %wo_11: tensor<768x768xbf16>,
    %g2_11: tensor<768xbf16>,
    %wg_11: tensor<2048x768xbf16>,
    %wu_11: tensor<2048x768xbf16>,
    %wd_11: tensor<768x2048xbf16>,
    %gf: tensor<768xbf16>) -> tensor<f32>
    attributes {attn.backward, attn.train = {beta1 = 0.9, beta2 = 0.95, weight_decay = 0.1, max_grad_norm = 1.0}} {
  %x0 = attn.embedding %wte, %ids : tensor<50304x768xbf16>, tensor<?x?xi32> -> tensor<?x?x768xbf16>
  // Block 0.
  %n1_0, %r1_0 = attn.rms_norm %x0, %g1_0 {epsilon = 1.0e-05 : f32} : tensor<?x?x768xbf16>, tensor<768xbf16> -> tensor<?x?x768xbf16>, tensor<?x?xf32>
  %q_0 = attn.matmul %n1_0, %wq_0 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %qh_0 = attn.split_heads %q_0 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %k_0 = attn.matmul %n1_0, %wk_0 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %kh_0 = attn.split_heads %k_0 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %v_0 = attn.matmul %n1_0, %wv_0 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %vh_0 = attn.split_heads %v_0 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %o_0, %lse_0 = attn.attention %qh_0, %kh_0, %vh_0 {causal} : tensor<?x12x?x64xbf16>, tensor<?x12x?x64xbf16>, tensor<?x12x?x64xbf16> -> tensor<?x12x?x64xbf16>, tensor<?x12x?xf32>
  %om_0 = attn.merge_heads %o_0 : tensor<?x12x?x64xbf16> -> tensor<?x?x768xbf16>
  %proj_0 = attn.matmul %om_0, %wo_0 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %h_0 = arith.addf %x0, %proj_0 : tensor<?x?x768xbf16>
  %n2_0, %r2_0 = attn.rms_norm %h_0, %g2_0 {epsilon = 1.0e-05 : f32} : tensor<?x?x768xbf16>, tensor<768xbf16> -> tensor<?x?x768xbf16>, tensor<?x?xf32>
  %gate_0 = attn.matmul %n2_0, %wg_0 {transpose_b} : tensor<?x?x768xbf16>, tensor<2048x768xbf16> -> tensor<?x?x2048xbf16>
  %up_0 = attn.matmul %n2_0, %wu_0 {transpose_b} : tensor<?x?x768xbf16>, tensor<2048x768xbf16> -> tensor<?x?x2048xbf16>
  %act_0 = attn.elementwise %gate_0, %up_0 : tensor<?x?x2048xbf16>, tensor<?x?x2048xbf16> -> tensor<?x?x2048xbf16> {
  ^bb0(%g: f32, %u: f32):
    %one = arith.constant 1.0 : f32
    %neg = arith.negf %g : f32
    %e = math.exp %neg : f32
    %den = arith.addf %one, %e : f32
    %silu = arith.divf %g, %den : f32
    %p = arith.mulf %silu, %u : f32
    attn.yield %p : f32
  }
  %down_0 = attn.matmul %act_0, %wd_0 {transpose_b} : tensor<?x?x2048xbf16>, tensor<768x2048xbf16> -> tensor<?x?x768xbf16>
  %y_0 = arith.addf %h_0, %down_0 : tensor<?x?x768xbf16>
  // Block 1.
  %n1_1, %r1_1 = attn.rms_norm %y_0, %g1_1 {epsilon = 1.0e-05 : f32} : tensor<?x?x768xbf16>, tensor<768xbf16> -> tensor<?x?x768xbf16>, tensor<?x?xf32>
  %q_1 = attn.matmul %n1_1, %wq_1 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %qh_1 = attn.split_heads %q_1 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %k_1 = attn.matmul %n1_1, %wk_1 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %kh_1 = attn.split_heads %k_1 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %v_1 = attn.matmul %n1_1, %wv_1 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %vh_1 = attn.split_heads %v_1 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %o_1, %lse_1 = attn.attention %qh_1, %kh_1, %vh_1 {causal} : tensor<?x12x?x64xbf16>, tensor<?x12x?x64xbf16>, tensor<?x12x?x64xbf16> -> tensor<?x12x?x64xbf16>, tensor<?x12x?xf32>
  %om_1 = attn.merge_heads %o_1 : tensor<?x12x?x64xbf16> -> tensor<?x?x768xbf16>
  %proj_1 = attn.matmul %om_1, %wo_1 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %h_1 = arith.addf %y_0, %proj_1 : tensor<?x?x768xbf16>
  %n2_1, %r2_1 = attn.rms_norm %h_1, %g2_1 {epsilon = 1.0e-05 : f32} : tensor<?x?x768xbf16>, tensor<768xbf16> -> tensor<?x?x768xbf16>, tensor<?x?xf32>
  %gate_1 = attn.matmul %n2_1, %wg_1 {transpose_b} : tensor<?x?x768xbf16>, tensor<2048x768xbf16> -> tensor<?x?x2048xbf16>
  %up_1 = attn.matmul %n2_1, %wu_1 {transpose_b} : tensor<?x?x768xbf16>, tensor<2048x768xbf16> -> tensor<?x?x2048xbf16>
  %act_1 = attn.elementwise %gate_1, %up_1 : tensor<?x?x2048xbf16>, tensor<?x?x2048xbf16> -> tensor<?x?x2048xbf16> {
  ^bb0(%g: f32, %u: f32):
    %one = arith.constant 1.0 : f32
    %neg = arith.negf %g : f32
    %e = math.exp %neg : f32
    %den = arith.addf %one, %e : f32
    %silu = arith.divf %g, %den : f32
    %p = arith.mulf %silu, %u : f32
    attn.yield %p : f32
  }
  %down_1 = attn.matmul %act_1, %wd_1 {transpose_b} : tensor<?x?x2048xbf16>, tensor<768x2048xbf16> -> tensor<?x?x768xbf16>
  %y_1 = arith.addf %h_1, %down_1 : tensor<?x?x768xbf16>
  // Block 2.
  %n1_2, %r1_2 = attn.rms_norm %y_1, %g1_2 {epsilon = 1.0e-05 : f32} : tensor<?x?x768xbf16>, tensor<768xbf16> -> tensor<?x?x768xbf16>, tensor<?x?xf32>
  %q_2 = attn.matmul %n1_2, %wq_2 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %qh_2 = attn.split_heads %q_2 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %k_2 = attn.matmul %n1_2, %wk_2 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %kh_2 = attn.split_heads %k_2 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %v_2 = attn.matmul %n1_2, %wv_2 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %vh_2 = attn.split_heads %v_2 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %o_2, %lse_2 = attn.attention %qh_2, %kh_2, %vh_2 {causal} : tensor<?x12x?x64xbf16>, tensor<?x12x?x64xbf16>, tensor<?x12x?x64xbf16> -> tensor<?x12x?x64xbf16>, tensor<?x12x?xf32>
  %om_2 = attn.merge_heads %o_2 : tensor<?x12x?x64xbf16> -> tensor<?x?x768xbf16>
  %proj_2 = attn.matmul %om_2, %wo_2 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %h_2 = arith.addf %y_1, %proj_2 : tensor<?x?x768xbf16>
  %n2_2, %r2_2 = attn.rms_norm %h_2, %g2_2 {epsilon = 1.0e-05 : f32} : tensor<?x?x768xbf16>, tensor<768xbf16> -> tensor<?x?x768xbf16>, tensor<?x?xf32>
  %gate_2 = attn.matmul %n2_2, %wg_2 {transpose_b} : tensor<?x?x768xbf16>, tensor<2048x768xbf16> -> tensor<?x?x2048xbf16>
  %up_2 = attn.matmul %n2_2, %wu_2 {transpose_b} : tensor<?x?x768xbf16>, tensor<2048x768xbf16> -> tensor<?x?x2048xbf16>
  %act_2 = attn.elementwise %gate_2, %up_2 : tensor<?x?x2048xbf16>, tensor<?x?x2048xbf16> -> tensor<?x?x2048xbf16> {
  ^bb0(%g: f32, %u: f32):
    %one = arith.constant 1.0 : f32
    %neg = arith.negf %g : f32
    %e = math.exp %neg : f32
    %den = arith.addf %one, %e : f32
    %silu = arith.divf %g, %den : f32
    %p = arith.mulf %silu, %u : f32
    attn.yield %p : f32
  }
  %down_2 = attn.matmul %act_2, %wd_2 {transpose_b} : tensor<?x?x2048xbf16>, tensor<768x2048xbf16> -> tensor<?x?x768xbf16>
  %y_2 = arith.addf %h_2, %down_2 : tensor<?x?x768xbf16>
  // Block 3.
  %n1_3, %r1_3 = attn.rms_norm %y_2, %g1_3 {epsilon = 1.0e-05 : f32} : tensor<?x?x768xbf16>, tensor<768xbf16> -> tensor<?x?x768xbf16>, tensor<?x?xf32>
  %q_3 = attn.matmul %n1_3, %wq_3 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %qh_3 = attn.split_heads %q_3 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %k_3 = attn.matmul %n1_3, %wk_3 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %kh_3 = attn.split_heads %k_3 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %v_3 = attn.matmul %n1_3, %wv_3 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %vh_3 = attn.split_heads %v_3 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %o_3, %lse_3 = attn.attention %qh_3, %kh_3, %vh_3 {causal} : tensor<?x12x?x64xbf16>, tensor<?x12x?x64xbf16>, tensor<?x12x?x64xbf16> -> tensor<?x12x?x64xbf16>, tensor<?x12x?xf32>
  %om_3 = attn.merge_heads %o_3 : tensor<?x12x?x64xbf16> -> tensor<?x?x768xbf16>
  %proj_3 = attn.matmul %om_3, %wo_3 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %h_3 = arith.addf %y_2, %proj_3 : tensor<?x?x768xbf16>
  %n2_3, %r2_3 = attn.rms_norm %h_3, %g2_3 {epsilon = 1.0e-05 : f32} : tensor<?x?x768xbf16>, tensor<768xbf16> -> tensor<?x?x768xbf16>, tensor<?x?xf32>
  %gate_3 = attn.matmul %n2_3, %wg_3 {transpose_b} : tensor<?x?x768xbf16>, tensor<2048x768xbf16> -> tensor<?x?x2048xbf16>
  %up_3 = attn.matmul %n2_3, %wu_3 {transpose_b} : tensor<?x?x768xbf16>, tensor<2048x768xbf16> -> tensor<?x?x2048xbf16>
  %act_3 = attn.elementwise %gate_3, %up_3 : tensor<?x?x2048xbf16>, tensor<?x?x2048xbf16> -> tensor<?x?x2048xbf16> {
  ^bb0(%g: f32, %u: f32):
    %one = arith.constant 1.0 : f32
    %neg = arith.negf %g : f32
    %e = math.exp %neg : f32
    %den = arith.addf %one, %e : f32
    %silu = arith.divf %g, %den : f32
    %p = arith.mulf %silu, %u : f32
    attn.yield %p : f32
  }
  %down_3 = attn.matmul %act_3, %wd_3 {transpose_b} : tensor<?x?x2048xbf16>, tensor<768x2048xbf16> -> tensor<?x?x768xbf16>
  %y_3 = arith.addf %h_3, %down_3 : tensor<?x?x768xbf16>
  // Block 4.
  %n1_4, %r1_4 = attn.rms_norm %y_3, %g1_4 {epsilon = 1.0e-05 : f32} : tensor<?x?x768xbf16>, tensor<768xbf16> -> tensor<?x?x768xbf16>, tensor<?x?xf32>
  %q_4 = attn.matmul %n1_4, %wq_4 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %qh_4 = attn.split_heads %q_4 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %k_4 = attn.matmul %n1_4, %wk_4 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %kh_4 = attn.split_heads %k_4 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %v_4 = attn.matmul %n1_4, %wv_4 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %vh_4 = attn.split_heads %v_4 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %o_4, %lse_4 = attn.attention %qh_4, %kh_4, %vh_4 {causal} : tensor<?x12x?x64xbf16>, tensor<?x12x?x64xbf16>, tensor<?x12x?x64xbf16> -> tensor<?x12x?x64xbf16>, tensor<?x12x?xf32>
  %om_4 = attn.merge_heads %o_4 : tensor<?x12x?x64xbf16> -> tensor<?x?x768xbf16>
  %proj_4 = attn.matmul %om_4, %wo_4 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %h_4 = arith.addf %y_3, %proj_4 : tensor<?x?x768xbf16>
  %n2_4, %r2_4 = attn.rms_norm %h_4, %g2_4 {epsilon = 1.0e-05 : f32} : tensor<?x?x768xbf16>, tensor<768xbf16> -> tensor<?x?x768xbf16>, tensor<?x?xf32>
  %gate_4 = attn.matmul %n2_4, %wg_4 {transpose_b} : tensor<?x?x768xbf16>, tensor<2048x768xbf16> -> tensor<?x?x2048xbf16>
  %up_4 = attn.matmul %n2_4, %wu_4 {transpose_b} : tensor<?x?x768xbf16>, tensor<2048x768xbf16> -> tensor<?x?x2048xbf16>
  %act_4 = attn.elementwise %gate_4, %up_4 : tensor<?x?x2048xbf16>, tensor<?x?x2048xbf16> -> tensor<?x?x2048xbf16> {
  ^bb0(%g: f32, %u: f32):
    %one = arith.constant 1.0 : f32
    %neg = arith.negf %g : f32
    %e = math.exp %neg : f32
    %den = arith.addf %one, %e : f32
    %silu = arith.divf %g, %den : f32
    %p = arith.mulf %silu, %u : f32
    attn.yield %p : f32
  }
  %down_4 = attn.matmul %act_4, %wd_4 {transpose_b} : tensor<?x?x2048xbf16>, tensor<768x2048xbf16> -> tensor<?x?x768xbf16>
  %y_4 = arith.addf %h_4, %down_4 : tensor<?x?x768xbf16>
  // Block 5.
  %n1_5, %r1_5 = attn.rms_norm %y_4, %g1_5 {epsilon = 1.0e-05 : f32} : tensor<?x?x768xbf16>, tensor<768xbf16> -> tensor<?x?x768xbf16>, tensor<?x?xf32>
  %q_5 = attn.matmul %n1_5, %wq_5 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %qh_5 = attn.split_heads %q_5 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %k_5 = attn.matmul %n1_5, %wk_5 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %kh_5 = attn.split_heads %k_5 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %v_5 = attn.matmul %n1_5, %wv_5 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %vh_5 = attn.split_heads %v_5 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %o_5, %lse_5 = attn.attention %qh_5, %kh_5, %vh_5 {causal} : tensor<?x12x?x64xbf16>, tensor<?x12x?x64xbf16>, tensor<?x12x?x64xbf16> -> tensor<?x12x?x64xbf16>, tensor<?x12x?xf32>
  %om_5 = attn.merge_heads %o_5 : tensor<?x12x?x64xbf16> -> tensor<?x?x768xbf16>
  %proj_5 = attn.matmul %om_5, %wo_5 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %h_5 = arith.addf %y_4, %proj_5 : tensor<?x?x768xbf16>
  %n2_5, %r2_5 = attn.rms_norm %h_5, %g2_5 {epsilon = 1.0e-05 : f32} : tensor<?x?x768xbf16>, tensor<768xbf16> -> tensor<?x?x768xbf16>, tensor<?x?xf32>
  %gate_5 = attn.matmul %n2_5, %wg_5 {transpose_b} : tensor<?x?x768xbf16>, tensor<2048x768xbf16> -> tensor<?x?x2048xbf16>
  %up_5 = attn.matmul %n2_5, %wu_5 {transpose_b} : tensor<?x?x768xbf16>, tensor<2048x768xbf16> -> tensor<?x?x2048xbf16>
  %act_5 = attn.elementwise %gate_5, %up_5 : tensor<?x?x2048xbf16>, tensor<?x?x2048xbf16> -> tensor<?x?x2048xbf16> {
  ^bb0(%g: f32, %u: f32):
    %one = arith.constant 1.0 : f32
    %neg = arith.negf %g : f32
    %e = math.exp %neg : f32
    %den = arith.addf %one, %e : f32
    %silu = arith.divf %g, %den : f32
    %p = arith.mulf %silu, %u : f32
    attn.yield %p : f32
  }
  %down_5 = attn.matmul %act_5, %wd_5 {transpose_b} : tensor<?x?x2048xbf16>, tensor<768x2048xbf16> -> tensor<?x?x768xbf16>
  %y_5 = arith.addf %h_5, %down_5 : tensor<?x?x768xbf16>
  // Block 6.
  %n1_6, %r1_6 = attn.rms_norm %y_5, %g1_6 {epsilon = 1.0e-05 : f32} : tensor<?x?x768xbf16>, tensor<768xbf16> -> tensor<?x?x768xbf16>, tensor<?x?xf32>
  %q_6 = attn.matmul %n1_6, %wq_6 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %qh_6 = attn.split_heads %q_6 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %k_6 = attn.matmul %n1_6, %wk_6 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %kh_6 = attn.split_heads %k_6 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %v_6 = attn.matmul %n1_6, %wv_6 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %vh_6 = attn.split_heads %v_6 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %o_6, %lse_6 = attn.attention %qh_6, %kh_6, %vh_6 {causal} : tensor<?x12x?x64xbf16>, tensor<?x12x?x64xbf16>, tensor<?x12x?x64xbf16> -> tensor<?x12x?x64xbf16>, tensor<?x12x?xf32>
  %om_6 = attn.merge_heads %o_6 : tensor<?x12x?x64xbf16> -> tensor<?x?x768xbf16>
  %proj_6 = attn.matmul %om_6, %wo_6 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %h_6 = arith.addf %y_5, %proj_6 : tensor<?x?x768xbf16>
  %n2_6, %r2_6 = attn.rms_norm %h_6, %g2_6 {epsilon = 1.0e-05 : f32} : tensor<?x?x768xbf16>, tensor<768xbf16> -> tensor<?x?x768xbf16>, tensor<?x?xf32>
  %gate_6 = attn.matmul %n2_6, %wg_6 {transpose_b} : tensor<?x?x768xbf16>, tensor<2048x768xbf16> -> tensor<?x?x2048xbf16>
  %up_6 = attn.matmul %n2_6, %wu_6 {transpose_b} : tensor<?x?x768xbf16>, tensor<2048x768xbf16> -> tensor<?x?x2048xbf16>
  %act_6 = attn.elementwise %gate_6, %up_6 : tensor<?x?x2048xbf16>, tensor<?x?x2048xbf16> -> tensor<?x?x2048xbf16> {
  ^bb0(%g: f32, %u: f32):
    %one = arith.constant 1.0 : f32
    %neg = arith.negf %g : f32
    %e = math.exp %neg : f32
    %den = arith.addf %one, %e : f32
    %silu = arith.divf %g, %den : f32
    %p = arith.mulf %silu, %u : f32
    attn.yield %p : f32
  }
  %down_6 = attn.matmul %act_6, %wd_6 {transpose_b} : tensor<?x?x2048xbf16>, tensor<768x2048xbf16> -> tensor<?x?x768xbf16>
  %y_6 = arith.addf %h_6, %down_6 : tensor<?x?x768xbf16>
  // Block 7.
  %n1_7, %r1_7 = attn.rms_norm %y_6, %g1_7 {epsilon = 1.0e-05 : f32} : tensor<?x?x768xbf16>, tensor<768xbf16> -> tensor<?x?x768xbf16>, tensor<?x?xf32>
  %q_7 = attn.matmul %n1_7, %wq_7 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %qh_7 = attn.split_heads %q_7 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %k_7 = attn.matmul %n1_7, %wk_7 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %kh_7 = attn.split_heads %k_7 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %v_7 = attn.matmul %n1_7, %wv_7 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %vh_7 = attn.split_heads %v_7 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %o_7, %lse_7 = attn.attention %qh_7, %kh_7, %vh_7 {causal} : tensor<?x12x?x64xbf16>, tensor<?x12x?x64xbf16>, tensor<?x12x?x64xbf16> -> tensor<?x12x?x64xbf16>, tensor<?x12x?xf32>
  %om_7 = attn.merge_heads %o_7 : tensor<?x12x?x64xbf16> -> tensor<?x?x768xbf16>
  %proj_7 = attn.matmul %om_7, %wo_7 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %h_7 = arith.addf %y_6, %proj_7 : tensor<?x?x768xbf16>
  %n2_7, %r2_7 = attn.rms_norm %h_7, %g2_7 {epsilon = 1.0e-05 : f32} : tensor<?x?x768xbf16>, tensor<768xbf16> -> tensor<?x?x768xbf16>, tensor<?x?xf32>
  %gate_7 = attn.matmul %n2_7, %wg_7 {transpose_b} : tensor<?x?x768xbf16>, tensor<2048x768xbf16> -> tensor<?x?x2048xbf16>
  %up_7 = attn.matmul %n2_7, %wu_7 {transpose_b} : tensor<?x?x768xbf16>, tensor<2048x768xbf16> -> tensor<?x?x2048xbf16>
  %act_7 = attn.elementwise %gate_7, %up_7 : tensor<?x?x2048xbf16>, tensor<?x?x2048xbf16> -> tensor<?x?x2048xbf16> {
  ^bb0(%g: f32, %u: f32):
    %one = arith.constant 1.0 : f32
    %neg = arith.negf %g : f32
    %e = math.exp %neg : f32
    %den = arith.addf %one, %e : f32
    %silu = arith.divf %g, %den : f32
    %p = arith.mulf %silu, %u : f32
    attn.yield %p : f32
  }
  %down_7 = attn.matmul %act_7, %wd_7 {transpose_b} : tensor<?x?x2048xbf16>, tensor<768x2048xbf16> -> tensor<?x?x768xbf16>
  %y_7 = arith.addf %h_7, %down_7 : tensor<?x?x768xbf16>
  // Block 8.
  %n1_8, %r1_8 = attn.rms_norm %y_7, %g1_8 {epsilon = 1.0e-05 : f32} : tensor<?x?x768xbf16>, tensor<768xbf16> -> tensor<?x?x768xbf16>, tensor<?x?xf32>
  %q_8 = attn.matmul %n1_8, %wq_8 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %qh_8 = attn.split_heads %q_8 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %k_8 = attn.matmul %n1_8, %wk_8 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %kh_8 = attn.split_heads %k_8 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %v_8 = attn.matmul %n1_8, %wv_8 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %vh_8 = attn.split_heads %v_8 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %o_8, %lse_8 = attn.attention %qh_8, %kh_8, %vh_8 {causal} : tensor<?x12x?x64xbf16>, tensor<?x12x?x64xbf16>, tensor<?x12x?x64xbf16> -> tensor<?x12x?x64xbf16>, tensor<?x12x?xf32>
  %om_8 = attn.merge_heads %o_8 : tensor<?x12x?x64xbf16> -> tensor<?x?x768xbf16>
  %proj_8 = attn.matmul %om_8, %wo_8 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %h_8 = arith.addf %y_7, %proj_8 : tensor<?x?x768xbf16>
  %n2_8, %r2_8 = attn.rms_norm %h_8, %g2_8 {epsilon = 1.0e-05 : f32} : tensor<?x?x768xbf16>, tensor<768xbf16> -> tensor<?x?x768xbf16>, tensor<?x?xf32>
  %gate_8 = attn.matmul %n2_8, %wg_8 {transpose_b} : tensor<?x?x768xbf16>, tensor<2048x768xbf16> -> tensor<?x?x2048xbf16>
  %up_8 = attn.matmul %n2_8, %wu_8 {transpose_b} : tensor<?x?x768xbf16>, tensor<2048x768xbf16> -> tensor<?x?x2048xbf16>
  %act_8 = attn.elementwise %gate_8, %up_8 : tensor<?x?x2048xbf16>, tensor<?x?x2048xbf16> -> tensor<?x?x2048xbf16> {
  ^bb0(%g: f32, %u: f32):
    %one = arith.constant 1.0 : f32
    %neg = arith.negf %g : f32
    %e = math.exp %neg : f32
    %den = arith.addf %one, %e : f32
    %silu = arith.divf %g, %den : f32
    %p = arith.mulf %silu, %u : f32
    attn.yield %p : f32
  }
  %down_8 = attn.matmul %act_8, %wd_8 {transpose_b} : tensor<?x?x2048xbf16>, tensor<768x2048xbf16> -> tensor<?x?x768xbf16>
  %y_8 = arith.addf %h_8, %down_8 : tensor<?x?x768xbf16>
  // Block 9.
  %n1_9, %r1_9 = attn.rms_norm %y_8, %g1_9 {epsilon = 1.0e-05 : f32} : tensor<?x?x768xbf16>, tensor<768xbf16> -> tensor<?x?x768xbf16>, tensor<?x?xf32>
  %q_9 = attn.matmul %n1_9, %wq_9 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %qh_9 = attn.split_heads %q_9 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %k_9 = attn.matmul %n1_9, %wk_9 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %kh_9 = attn.split_heads %k_9 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %v_9 = attn.matmul %n1_9, %wv_9 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %vh_9 = attn.split_heads %v_9 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %o_9, %lse_9 = attn.attention %qh_9, %kh_9, %vh_9 {causal} : tensor<?x12x?x64xbf16>, tensor<?x12x?x64xbf16>, tensor<?x12x?x64xbf16> -> tensor<?x12x?x64xbf16>, tensor<?x12x?xf32>
  %om_9 = attn.merge_heads %o_9 : tensor<?x12x?x64xbf16> -> tensor<?x?x768xbf16>
  %proj_9 = attn.matmul %om_9, %wo_9 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %h_9 = arith.addf %y_8, %proj_9 : tensor<?x?x768xbf16>
  %n2_9, %r2_9 = attn.rms_norm %h_9, %g2_9 {epsilon = 1.0e-05 : f32} : tensor<?x?x768xbf16>, tensor<768xbf16> -> tensor<?x?x768xbf16>, tensor<?x?xf32>
  %gate_9 = attn.matmul %n2_9, %wg_9 {transpose_b} : tensor<?x?x768xbf16>, tensor<2048x768xbf16> -> tensor<?x?x2048xbf16>
  %up_9 = attn.matmul %n2_9, %wu_9 {transpose_b} : tensor<?x?x768xbf16>, tensor<2048x768xbf16> -> tensor<?x?x2048xbf16>
  %act_9 = attn.elementwise %gate_9, %up_9 : tensor<?x?x2048xbf16>, tensor<?x?x2048xbf16> -> tensor<?x?x2048xbf16> {
  ^bb0(%g: f32, %u: f32):
    %one = arith.constant 1.0 : f32
    %neg = arith.negf %g : f32
    %e = math.exp %neg : f32
    %den = arith.addf %one, %e : f32
    %silu = arith.divf %g, %den : f32
    %p = arith.mulf %silu, %u : f32
    attn.yield %p : f32
  }
  %down_9 = attn.matmul %act_9, %wd_9 {transpose_b} : tensor<?x?x2048xbf16>, tensor<768x2048xbf16> -> tensor<?x?x768xbf16>
  %y_9 = arith.addf %h_9, %down_9 : tensor<?x?x768xbf16>
  // Block 10.
  %n1_10, %r1_10 = attn.rms_norm %y_9, %g1_10 {epsilon = 1.0e-05 : f32} : tensor<?x?x768xbf16>, tensor<768xbf16> -> tensor<?x?x768xbf16>, tensor<?x?xf32>
  %q_10 = attn.matmul %n1_10, %wq_10 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %qh_10 = attn.split_heads %q_10 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %k_10 = attn.matmul %n1_10, %wk_10 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %kh_10 = attn.split_heads %k_10 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %v_10 = attn.matmul %n1_10, %wv_10 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %vh_10 = attn.split_heads %v_10 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %o_10, %lse_10 = attn.attention %qh_10, %kh_10, %vh_10 {causal} : tensor<?x12x?x64xbf16>, tensor<?x12x?x64xbf16>, tensor<?x12x?x64xbf16> -> tensor<?x12x?x64xbf16>, tensor<?x12x?xf32>
  %om_10 = attn.merge_heads %o_10 : tensor<?x12x?x64xbf16> -> tensor<?x?x768xbf16>
  %proj_10 = attn.matmul %om_10, %wo_10 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %h_10 = arith.addf %y_9, %proj_10 : tensor<?x?x768xbf16>
  %n2_10, %r2_10 = attn.rms_norm %h_10, %g2_10 {epsilon = 1.0e-05 : f32} : tensor<?x?x768xbf16>, tensor<768xbf16> -> tensor<?x?x768xbf16>, tensor<?x?xf32>
  %gate_10 = attn.matmul %n2_10, %wg_10 {transpose_b} : tensor<?x?x768xbf16>, tensor<2048x768xbf16> -> tensor<?x?x2048xbf16>
  %up_10 = attn.matmul %n2_10, %wu_10 {transpose_b} : tensor<?x?x768xbf16>, tensor<2048x768xbf16> -> tensor<?x?x2048xbf16>
  %act_10 = attn.elementwise %gate_10, %up_10 : tensor<?x?x2048xbf16>, tensor<?x?x2048xbf16> -> tensor<?x?x2048xbf16> {
  ^bb0(%g: f32, %u: f32):
    %one = arith.constant 1.0 : f32
    %neg = arith.negf %g : f32
    %e = math.exp %neg : f32
    %den = arith.addf %one, %e : f32
    %silu = arith.divf %g, %den : f32
    %p = arith.mulf %silu, %u : f32
    attn.yield %p : f32
  }
  %down_10 = attn.matmul %act_10, %wd_10 {transpose_b} : tensor<?x?x2048xbf16>, tensor<768x2048xbf16> -> tensor<?x?x768xbf16>
  %y_10 = arith.addf %h_10, %down_10 : tensor<?x?x768xbf16>
  // Block 11.
  %n1_11, %r1_11 = attn.rms_norm %y_10, %g1_11 {epsilon = 1.0e-05 : f32} : tensor<?x?x768xbf16>, tensor<768xbf16> -> tensor<?x?x768xbf16>, tensor<?x?xf32>
  %q_11 = attn.matmul %n1_11, %wq_11 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %qh_11 = attn.split_heads %q_11 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %k_11 = attn.matmul %n1_11, %wk_11 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %kh_11 = attn.split_heads %k_11 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %v_11 = attn.matmul %n1_11, %wv_11 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %vh_11 = attn.split_heads %v_11 : tensor<?x?x768xbf16> -> tensor<?x12x?x64xbf16>
  %o_11, %lse_11 = attn.attention %qh_11, %kh_11, %vh_11 {causal} : tensor<?x12x?x64xbf16>, tensor<?x12x?x64xbf16>, tensor<?x12x?x64xbf16> -> tensor<?x12x?x64xbf16>, tensor<?x12x?xf32>
  %om_11 = attn.merge_heads %o_11 : tensor<?x12x?x64xbf16> -> tensor<?x?x768xbf16>
  %proj_11 = attn.matmul %om_11, %wo_11 {transpose_b} : tensor<?x?x768xbf16>, tensor<768x768xbf16> -> tensor<?x?x768xbf16>
  %h_11 = arith.addf %y_10, %proj_11 : tensor<?x?x768xbf16>
  %n2_11, %r2_11 = attn.rms_norm %h_11, %g2_11 {epsilon = 1.0e-05 : f32} : tensor<?x?x768xbf16>, tensor<768xbf16> -> tensor<?x?x768xbf16>, tensor<?x?xf32>
  %gate_11 = attn.matmul %n2_11, %wg_11 {transpose_b} : tensor<?x?x768xbf16>, tensor<2048x768xbf16> -> tensor<?x?x2048xbf16>
  %up_11 = attn.matmul %n2_11, %wu_11 {transpose_b} : tensor<?x?x768xbf16>, tensor<2048x768xbf16> -> tensor<?x?x2048xbf16>
  %act_11 = attn.elementwise %gate_11, %up_11 : tensor<?x?x2048xbf16>, tensor<?x?x2048xbf16> -> tensor<?x?x2048xbf16> {
  ^bb0(%g: f32, %u: f32):
    %one = arith.constant 1.0 : f32
    %neg = arith.negf %g : f32
    %e = math.exp %neg : f32
    %den = arith.addf %one, %e : f32
    %silu = arith.divf %g, %den : f32
    %p = arith.mulf %silu, %u : f32
    attn.yield %p : f32
  }
  %down_11 = attn.matmul %act_11, %wd_11 {transpose_b} : tensor<?x?x2048xbf16>, tensor<768x2048xbf16> -> tensor<?x?x768xbf16>
  %y_11 = arith.addf %h_11, %down_11 : tensor<?x?x768xbf16>
  %nf, %rf = attn.rms_norm %y_11, %gf {epsilon = 1.0e-05 : f32} : tensor<?x?x768xbf16>, tensor<768xbf16> -> tensor<?x?x768xbf16>, tensor<?x?xf32>
  %logits = attn.matmul %nf, %wte {transpose_b} : tensor<?x?x768xbf16>, tensor<50304x768xbf16> -> tensor<?x?x50304xbf16>
  %losses, %lse = attn.cross_entropy %logits, %labels {ignore_index = -100 : i64} : tensor<?x?x50304xbf16>, tensor<?x?xi32> -> tensor<?x?xf32>, tensor<?x?xf32>
  %loss = attn.token_mean %losses, %labels {ignore_index = -100 : i64} : tensor<?x?xf32>, tensor<?x?xi32> -> tensor<f32>
  return %loss : tensor<f32>
}
