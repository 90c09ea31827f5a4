// A small GPT-style decoder language model over bytes, for training on the
// host in minutes: token embedding tied to the LM head (vocabulary 256),
// two pre-norm blocks (RMSNorm, causal multi-head attention of 4 heads of
// 16 without positional embeddings, a SwiGLU MLP), a final RMSNorm and
// the mean cross-entropy of the next byte, in f32. `attn.train` asks for
// the training step `@tiny_gpt_step` (AdamW with betas 0.9 and 0.95,
// weight decay 0.1 on matrices, gradients clipped to norm 1), which
// attn-train runs; the backward `@tiny_gpt_bwd` comes with it. Written by
// scripts/make-gpt.py tiny_gpt --d-model 64 --heads 4 --ffn 176
// --layers 2 --vocab 256 --dtype f32.
//
// EXAMPLE-TRAIN: --steps 60 --batch 8 --seq 64 --lr 3e-3 --warmup 10
func.func @tiny_gpt(%ids: tensor<?x?xi32>,
    %labels: tensor<?x?xi32>,
    %wte: tensor<256x64xf32>,
    %g1_0: tensor<64xf32>,
    %wq_0: tensor<64x64xf32>,
    %wk_0: tensor<64x64xf32>,
    %wv_0: tensor<64x64xf32>,
    %wo_0: tensor<64x64xf32>,
    %g2_0: tensor<64xf32>,
    %wg_0: tensor<176x64xf32>,
    %wu_0: tensor<176x64xf32>,
    %wd_0: tensor<64x176xf32>,
    %g1_1: tensor<64xf32>,
    %wq_1: tensor<64x64xf32>,
    %wk_1: tensor<64x64xf32>,
    %wv_1: tensor<64x64xf32>,
    %wo_1: tensor<64x64xf32>,
    %g2_1: tensor<64xf32>,
    %wg_1: tensor<176x64xf32>,
    %wu_1: tensor<176x64xf32>,
    %wd_1: tensor<64x176xf32>,
    %gf: tensor<64xf32>) -> tensor<f32>
    attributes {attn.backward, attn.train = {beta1 = 0.9, beta2 = 0.95, weight_decay = 0.1, max_grad_norm = 1.0}} {
  %x0 = attn.embedding %wte, %ids : tensor<256x64xf32>, tensor<?x?xi32> -> tensor<?x?x64xf32>
  // Block 0.
  %n1_0, %r1_0 = attn.rms_norm %x0, %g1_0 {epsilon = 1.0e-05 : f32} : tensor<?x?x64xf32>, tensor<64xf32> -> tensor<?x?x64xf32>, tensor<?x?xf32>
  %q_0 = attn.matmul %n1_0, %wq_0 {transpose_b} : tensor<?x?x64xf32>, tensor<64x64xf32> -> tensor<?x?x64xf32>
  %qh_0 = attn.split_heads %q_0 : tensor<?x?x64xf32> -> tensor<?x4x?x16xf32>
  %k_0 = attn.matmul %n1_0, %wk_0 {transpose_b} : tensor<?x?x64xf32>, tensor<64x64xf32> -> tensor<?x?x64xf32>
  %kh_0 = attn.split_heads %k_0 : tensor<?x?x64xf32> -> tensor<?x4x?x16xf32>
  %v_0 = attn.matmul %n1_0, %wv_0 {transpose_b} : tensor<?x?x64xf32>, tensor<64x64xf32> -> tensor<?x?x64xf32>
  %vh_0 = attn.split_heads %v_0 : tensor<?x?x64xf32> -> tensor<?x4x?x16xf32>
  %o_0, %lse_0 = attn.attention %qh_0, %kh_0, %vh_0 {causal} : tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32> -> tensor<?x4x?x16xf32>, tensor<?x4x?xf32>
  %om_0 = attn.merge_heads %o_0 : tensor<?x4x?x16xf32> -> tensor<?x?x64xf32>
  %proj_0 = attn.matmul %om_0, %wo_0 {transpose_b} : tensor<?x?x64xf32>, tensor<64x64xf32> -> tensor<?x?x64xf32>
  %h_0 = arith.addf %x0, %proj_0 : tensor<?x?x64xf32>
  %n2_0, %r2_0 = attn.rms_norm %h_0, %g2_0 {epsilon = 1.0e-05 : f32} : tensor<?x?x64xf32>, tensor<64xf32> -> tensor<?x?x64xf32>, tensor<?x?xf32>
  %gate_0 = attn.matmul %n2_0, %wg_0 {transpose_b} : tensor<?x?x64xf32>, tensor<176x64xf32> -> tensor<?x?x176xf32>
  %up_0 = attn.matmul %n2_0, %wu_0 {transpose_b} : tensor<?x?x64xf32>, tensor<176x64xf32> -> tensor<?x?x176xf32>
  %act_0 = attn.elementwise %gate_0, %up_0 : tensor<?x?x176xf32>, tensor<?x?x176xf32> -> tensor<?x?x176xf32> {
  ^bb0(%g: f32, %u: f32):
    %one = arith.constant 1.0 : f32
    %neg = arith.negf %g : f32
    %e = math.exp %neg : f32
    %den = arith.addf %one, %e : f32
    %silu = arith.divf %g, %den : f32
    %p = arith.mulf %silu, %u : f32
    attn.yield %p : f32
  }
  %down_0 = attn.matmul %act_0, %wd_0 {transpose_b} : tensor<?x?x176xf32>, tensor<64x176xf32> -> tensor<?x?x64xf32>
  %y_0 = arith.addf %h_0, %down_0 : tensor<?x?x64xf32>
  // Block 1.
  %n1_1, %r1_1 = attn.rms_norm %y_0, %g1_1 {epsilon = 1.0e-05 : f32} : tensor<?x?x64xf32>, tensor<64xf32> -> tensor<?x?x64xf32>, tensor<?x?xf32>
  %q_1 = attn.matmul %n1_1, %wq_1 {transpose_b} : tensor<?x?x64xf32>, tensor<64x64xf32> -> tensor<?x?x64xf32>
  %qh_1 = attn.split_heads %q_1 : tensor<?x?x64xf32> -> tensor<?x4x?x16xf32>
  %k_1 = attn.matmul %n1_1, %wk_1 {transpose_b} : tensor<?x?x64xf32>, tensor<64x64xf32> -> tensor<?x?x64xf32>
  %kh_1 = attn.split_heads %k_1 : tensor<?x?x64xf32> -> tensor<?x4x?x16xf32>
  %v_1 = attn.matmul %n1_1, %wv_1 {transpose_b} : tensor<?x?x64xf32>, tensor<64x64xf32> -> tensor<?x?x64xf32>
  %vh_1 = attn.split_heads %v_1 : tensor<?x?x64xf32> -> tensor<?x4x?x16xf32>
  %o_1, %lse_1 = attn.attention %qh_1, %kh_1, %vh_1 {causal} : tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32> -> tensor<?x4x?x16xf32>, tensor<?x4x?xf32>
  %om_1 = attn.merge_heads %o_1 : tensor<?x4x?x16xf32> -> tensor<?x?x64xf32>
  %proj_1 = attn.matmul %om_1, %wo_1 {transpose_b} : tensor<?x?x64xf32>, tensor<64x64xf32> -> tensor<?x?x64xf32>
  %h_1 = arith.addf %y_0, %proj_1 : tensor<?x?x64xf32>
  %n2_1, %r2_1 = attn.rms_norm %h_1, %g2_1 {epsilon = 1.0e-05 : f32} : tensor<?x?x64xf32>, tensor<64xf32> -> tensor<?x?x64xf32>, tensor<?x?xf32>
  %gate_1 = attn.matmul %n2_1, %wg_1 {transpose_b} : tensor<?x?x64xf32>, tensor<176x64xf32> -> tensor<?x?x176xf32>
  %up_1 = attn.matmul %n2_1, %wu_1 {transpose_b} : tensor<?x?x64xf32>, tensor<176x64xf32> -> tensor<?x?x176xf32>
  %act_1 = attn.elementwise %gate_1, %up_1 : tensor<?x?x176xf32>, tensor<?x?x176xf32> -> tensor<?x?x176xf32> {
  ^bb0(%g: f32, %u: f32):
    %one = arith.constant 1.0 : f32
    %neg = arith.negf %g : f32
    %e = math.exp %neg : f32
    %den = arith.addf %one, %e : f32
    %silu = arith.divf %g, %den : f32
    %p = arith.mulf %silu, %u : f32
    attn.yield %p : f32
  }
  %down_1 = attn.matmul %act_1, %wd_1 {transpose_b} : tensor<?x?x176xf32>, tensor<64x176xf32> -> tensor<?x?x64xf32>
  %y_1 = arith.addf %h_1, %down_1 : tensor<?x?x64xf32>
  %nf, %rf = attn.rms_norm %y_1, %gf {epsilon = 1.0e-05 : f32} : tensor<?x?x64xf32>, tensor<64xf32> -> tensor<?x?x64xf32>, tensor<?x?xf32>
  %logits = attn.matmul %nf, %wte {transpose_b} : tensor<?x?x64xf32>, tensor<256x64xf32> -> tensor<?x?x256xf32>
  %losses, %lse = attn.cross_entropy %logits, %labels {ignore_index = -100 : i64} : tensor<?x?x256xf32>, tensor<?x?xi32> -> tensor<?x?xf32>, tensor<?x?xf32>
  %loss = attn.token_mean %losses, %labels {ignore_index = -100 : i64} : tensor<?x?xf32>, tensor<?x?xi32> -> tensor<f32>
  return %loss : tensor<f32>
}
