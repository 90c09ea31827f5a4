// A GPT-2-style decoder block, forward and backward, in bf16:
//   h = x + Wo merge(attention(Wq n1 + bq, Wk n1, Wv n1 + bv)) + bo
//   y = h + Wp gelu(Wf n2 + bf) + bp
// with n1 = layer_norm(x) g1 + b1 and n2 = layer_norm(h) g2 + b2, causal
// multi-head attention (8 heads of 32), a GELU (tanh form) MLP of 4x the
// width, and weights in nn.Linear's [out, in] layout with biases. The bias
// rides in attn.matmul (cuBLASLt's bias epilogue on the GPU), and so does
// GELU, written as an attn.elementwise body in f32 that
// attn-fuse-activations recognizes (cuBLASLt's GELU epilogue). The
// backward function is derived (`attn.backward`): gradients of x and of
// every weight and bias. The key projection has no bias: it adds q . bk to
// every score of a query, which softmax cancels, so its gradient is zero up
// to rounding (GPT-2 has one only because it fuses q, k and v into one
// layer). As in llama_block.mlir, the attention projections' and the
// second MLP layer's outputs are multiplied by 1/sqrt(fan-in), so that
// N(0, 1) weights keep activations near unit size (GELU reads its layer's
// output as it is, as GPT-2's does).
//
// EXAMPLE-RUN: --fn gpt2_block --shape B=2 --shape N=96
// EXAMPLE-RUN: --fn gpt2_block_bwd --shape B=2 --shape N=96
!act = tensor<?x?x256xbf16>
!wide = tensor<?x?x1024xbf16>
!heads = tensor<?x8x?x32xbf16>
!vec = tensor<256xbf16>
func.func @gpt2_block(%x: !act, %g1: !vec, %b1: !vec,
                      %wq: tensor<256x256xbf16>, %bq: !vec,
                      %wk: tensor<256x256xbf16>,
                      %wv: tensor<256x256xbf16>, %bv: !vec,
                      %wo: tensor<256x256xbf16>, %bo: !vec,
                      %g2: !vec, %b2: !vec,
                      %wf: tensor<1024x256xbf16>, %bf: tensor<1024xbf16>,
                      %wp: tensor<256x1024xbf16>, %bp: !vec) -> !act
    attributes {attn.backward} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %x, %c0 : !act
  %n = tensor.dim %x, %c1 : !act
  // The multipliers 1/sqrt(256) and 1/sqrt(1024).
  %m256_s = arith.constant 0.0625 : bf16
  %m1024_s = arith.constant 0.03125 : bf16
  %m256 = tensor.splat %m256_s[%b, %n] : !act
  %m1024 = tensor.splat %m1024_s[%b, %n] : !act
  // Attention sublayer.
  %n1, %r1 = attn.layer_norm %x, %g1, %b1 {epsilon = 1.0e-05 : f32}
      : !act, !vec, !vec -> !act, tensor<?x?xf32>
  %q0 = attn.matmul %n1, %wq, %bq {transpose_b}
      : !act, tensor<256x256xbf16>, !vec -> !act
  %k0 = attn.matmul %n1, %wk {transpose_b}
      : !act, tensor<256x256xbf16> -> !act
  %v0 = attn.matmul %n1, %wv, %bv {transpose_b}
      : !act, tensor<256x256xbf16>, !vec -> !act
  %q = arith.mulf %q0, %m256 : !act
  %k = arith.mulf %k0, %m256 : !act
  %v = arith.mulf %v0, %m256 : !act
  %qh = attn.split_heads %q : !act -> !heads
  %kh = attn.split_heads %k : !act -> !heads
  %vh = attn.split_heads %v : !act -> !heads
  %o, %lse = attn.attention %qh, %kh, %vh {causal}
      : !heads, !heads, !heads -> !heads, tensor<?x8x?xf32>
  %om = attn.merge_heads %o : !heads -> !act
  %proj0 = attn.matmul %om, %wo, %bo {transpose_b}
      : !act, tensor<256x256xbf16>, !vec -> !act
  %proj = arith.mulf %proj0, %m256 : !act
  %h = arith.addf %x, %proj : !act
  // MLP sublayer: gelu(Wf n2 + bf), GELU's tanh form, which
  // attn-fuse-activations puts into the matmul's epilogue.
  %n2, %r2 = attn.layer_norm %h, %g2, %b2 {epsilon = 1.0e-05 : f32}
      : !act, !vec, !vec -> !act, tensor<?x?xf32>
  %f0 = attn.matmul %n2, %wf, %bf {transpose_b}
      : !act, tensor<1024x256xbf16>, tensor<1024xbf16> -> !wide
  %f = attn.elementwise %f0 : !wide -> !wide {
  ^bb0(%u: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %cubic = arith.constant 0.044715 : f32
    %scale = arith.constant 0.7978845608 : f32
    %u2 = arith.mulf %u, %u : f32
    %u3 = arith.mulf %u2, %u : f32
    %cu3 = arith.mulf %cubic, %u3 : f32
    %inner = arith.addf %u, %cu3 : f32
    %arg = arith.mulf %scale, %inner : f32
    %t = math.tanh %arg : f32
    %onet = arith.addf %one, %t : f32
    %hu = arith.mulf %half, %u : f32
    %gelu = arith.mulf %hu, %onet : f32
    attn.yield %gelu : f32
  }
  %down0 = attn.matmul %f, %wp, %bp {transpose_b}
      : !wide, tensor<256x1024xbf16>, !vec -> !act
  %down = arith.mulf %down0, %m1024 : !act
  %y = arith.addf %h, %down : !act
  return %y : !act
}
