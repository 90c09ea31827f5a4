// A one-block byte-level GPT written in bf16 whose training step computes
// in f16 (attn.train's compute = f16), for attn-train's loss-scaling
// tests: embedding tied to the LM head, RMSNorm, causal attention of 2
// heads of 16, a SwiGLU MLP, the mean cross-entropy of the next byte.
// Written by scripts/make-gpt.py small_gpt --d-model 32 --heads 2
// --ffn 96 --layers 1 --vocab 256 --dtype bf16 --compute f16.
func.func @small_gpt(%ids: tensor<?x?xi32>,
    %labels: tensor<?x?xi32>,
    %wte: tensor<256x32xbf16>,
    %g1_0: tensor<32xbf16>,
    %wq_0: tensor<32x32xbf16>,
    %wk_0: tensor<32x32xbf16>,
    %wv_0: tensor<32x32xbf16>,
    %wo_0: tensor<32x32xbf16>,
    %g2_0: tensor<32xbf16>,
    %wg_0: tensor<96x32xbf16>,
    %wu_0: tensor<96x32xbf16>,
    %wd_0: tensor<32x96xbf16>,
    %gf: tensor<32xbf16>) -> tensor<f32>
    attributes {attn.backward, attn.train = {beta1 = 0.9, beta2 = 0.95, weight_decay = 0.1, max_grad_norm = 1.0, compute = f16}} {
  %x0 = attn.embedding %wte, %ids : tensor<256x32xbf16>, tensor<?x?xi32> -> tensor<?x?x32xbf16>
  // Block 0.
  %n1_0, %r1_0 = attn.rms_norm %x0, %g1_0 {epsilon = 1.0e-05 : f32} : tensor<?x?x32xbf16>, tensor<32xbf16> -> tensor<?x?x32xbf16>, tensor<?x?xf32>
  %q_0 = attn.matmul %n1_0, %wq_0 {transpose_b} : tensor<?x?x32xbf16>, tensor<32x32xbf16> -> tensor<?x?x32xbf16>
  %qh_0 = attn.split_heads %q_0 : tensor<?x?x32xbf16> -> tensor<?x2x?x16xbf16>
  %k_0 = attn.matmul %n1_0, %wk_0 {transpose_b} : tensor<?x?x32xbf16>, tensor<32x32xbf16> -> tensor<?x?x32xbf16>
  %kh_0 = attn.split_heads %k_0 : tensor<?x?x32xbf16> -> tensor<?x2x?x16xbf16>
  %v_0 = attn.matmul %n1_0, %wv_0 {transpose_b} : tensor<?x?x32xbf16>, tensor<32x32xbf16> -> tensor<?x?x32xbf16>
  %vh_0 = attn.split_heads %v_0 : tensor<?x?x32xbf16> -> tensor<?x2x?x16xbf16>
  %o_0, %lse_0 = attn.attention %qh_0, %kh_0, %vh_0 {causal} : tensor<?x2x?x16xbf16>, tensor<?x2x?x16xbf16>, tensor<?x2x?x16xbf16> -> tensor<?x2x?x16xbf16>, tensor<?x2x?xf32>
  %om_0 = attn.merge_heads %o_0 : tensor<?x2x?x16xbf16> -> tensor<?x?x32xbf16>
  %proj_0 = attn.matmul %om_0, %wo_0 {transpose_b} : tensor<?x?x32xbf16>, tensor<32x32xbf16> -> tensor<?x?x32xbf16>
  %h_0 = arith.addf %x0, %proj_0 : tensor<?x?x32xbf16>
  %n2_0, %r2_0 = attn.rms_norm %h_0, %g2_0 {epsilon = 1.0e-05 : f32} : tensor<?x?x32xbf16>, tensor<32xbf16> -> tensor<?x?x32xbf16>, tensor<?x?xf32>
  %gate_0 = attn.matmul %n2_0, %wg_0 {transpose_b} : tensor<?x?x32xbf16>, tensor<96x32xbf16> -> tensor<?x?x96xbf16>
  %up_0 = attn.matmul %n2_0, %wu_0 {transpose_b} : tensor<?x?x32xbf16>, tensor<96x32xbf16> -> tensor<?x?x96xbf16>
  %act_0 = attn.elementwise %gate_0, %up_0 : tensor<?x?x96xbf16>, tensor<?x?x96xbf16> -> tensor<?x?x96xbf16> {
  ^bb0(%g: f32, %u: f32):
    %one = arith.constant 1.0 : f32
    %neg = arith.negf %g : f32
    %e = math.exp %neg : f32
    %den = arith.addf %one, %e : f32
    %silu = arith.divf %g, %den : f32
    %p = arith.mulf %silu, %u : f32
    attn.yield %p : f32
  }
  %down_0 = attn.matmul %act_0, %wd_0 {transpose_b} : tensor<?x?x96xbf16>, tensor<32x96xbf16> -> tensor<?x?x32xbf16>
  %y_0 = arith.addf %h_0, %down_0 : tensor<?x?x32xbf16>
  %nf, %rf = attn.rms_norm %y_0, %gf {epsilon = 1.0e-05 : f32} : tensor<?x?x32xbf16>, tensor<32xbf16> -> tensor<?x?x32xbf16>, tensor<?x?xf32>
  %logits = attn.matmul %nf, %wte {transpose_b} : tensor<?x?x32xbf16>, tensor<256x32xbf16> -> tensor<?x?x256xbf16>
  %losses, %lse = attn.cross_entropy %logits, %labels {ignore_index = -100 : i64} : tensor<?x?x256xbf16>, tensor<?x?xi32> -> tensor<?x?xf32>, tensor<?x?xf32>
  %loss = attn.token_mean %losses, %labels {ignore_index = -100 : i64} : tensor<?x?xf32>, tensor<?x?xi32> -> tensor<f32>
  return %loss : tensor<f32>
}
