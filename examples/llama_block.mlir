// A Llama-style decoder block, forward and backward, in bf16:
//   h = x + Wo merge(attention(rope(Wq n1), rope(Wk n1), Wv n1))
//   y = h + Wd (silu(Wg n2) * (Wu n2))
// with n1 = rms_norm(x) g1 and n2 = rms_norm(h) g2, causal grouped-query
// attention (8 query heads over 2 key/value heads of 32), rotary
// embeddings from cos/sin tables (inputs, so any RoPE variant is a choice
// of tables) and weights in nn.Linear's [out, in] layout. Projections are
// attn.matmul (cuBLASLt on the GPU), attn.split_heads turns their outputs
// into attention's [B, H, N, D] (rotating q and k on the way) and
// attn.merge_heads turns attention's output back. The backward function is
// derived (`attn.backward`): gradients of x and of every weight; the tables
// take none. Each projection's output is multiplied by 1/sqrt(fan-in) (a
// muP-style multiplier), so that weights drawn N(0, 1), as attn-run draws
// its inputs, keep activations near unit size; without it the softmax
// saturates and bf16 rounding decides its near-ties.
//
// EXAMPLE-RUN: --fn llama_block --shape B=2 --shape N=128
// EXAMPLE-RUN: --fn llama_block_bwd --shape B=2 --shape N=128
!act = tensor<?x?x256xbf16>
!qh = tensor<?x8x?x32xbf16>
!kvh = tensor<?x2x?x32xbf16>
!tab = tensor<?x16xf32>
func.func @llama_block(%x: !act, %cos: !tab, %sin: !tab,
                       %g1: tensor<256xbf16>, %wq: tensor<256x256xbf16>,
                       %wk: tensor<64x256xbf16>, %wv: tensor<64x256xbf16>,
                       %wo: tensor<256x256xbf16>, %g2: tensor<256xbf16>,
                       %wg: tensor<688x256xbf16>, %wu: tensor<688x256xbf16>,
                       %wd: tensor<256x688xbf16>) -> !act
    attributes {attn.backward} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %x, %c0 : !act
  %n = tensor.dim %x, %c1 : !act
  // The multipliers 1/sqrt(256) and 1/sqrt(688).
  %m256_s = arith.constant 0.0625 : bf16
  %m688_s = arith.constant 0.0381246 : bf16
  %m256 = tensor.splat %m256_s[%b, %n] : !act
  %m256kv = tensor.splat %m256_s[%b, %n] : tensor<?x?x64xbf16>
  %m256h = tensor.splat %m256_s[%b, %n] : tensor<?x?x688xbf16>
  %m688 = tensor.splat %m688_s[%b, %n] : !act
  // Attention sublayer.
  %n1, %r1 = attn.rms_norm %x, %g1 {epsilon = 1.0e-05 : f32}
      : !act, tensor<256xbf16> -> !act, tensor<?x?xf32>
  %q0 = attn.matmul %n1, %wq {transpose_b}
      : !act, tensor<256x256xbf16> -> !act
  %k0 = attn.matmul %n1, %wk {transpose_b}
      : !act, tensor<64x256xbf16> -> tensor<?x?x64xbf16>
  %v0 = attn.matmul %n1, %wv {transpose_b}
      : !act, tensor<64x256xbf16> -> tensor<?x?x64xbf16>
  %q = arith.mulf %q0, %m256 : !act
  %k = arith.mulf %k0, %m256kv : tensor<?x?x64xbf16>
  %v = arith.mulf %v0, %m256kv : tensor<?x?x64xbf16>
  %qh = attn.split_heads %q, %cos, %sin : !act, !tab, !tab -> !qh
  %kh = attn.split_heads %k, %cos, %sin
      : tensor<?x?x64xbf16>, !tab, !tab -> !kvh
  %vh = attn.split_heads %v : tensor<?x?x64xbf16> -> !kvh
  %o, %lse = attn.attention %qh, %kh, %vh {causal}
      : !qh, !kvh, !kvh -> !qh, tensor<?x8x?xf32>
  %om = attn.merge_heads %o : !qh -> !act
  %proj0 = attn.matmul %om, %wo {transpose_b}
      : !act, tensor<256x256xbf16> -> !act
  %proj = arith.mulf %proj0, %m256 : !act
  %h = arith.addf %x, %proj : !act
  // MLP sublayer: SwiGLU.
  %n2, %r2 = attn.rms_norm %h, %g2 {epsilon = 1.0e-05 : f32}
      : !act, tensor<256xbf16> -> !act, tensor<?x?xf32>
  %gate0 = attn.matmul %n2, %wg {transpose_b}
      : !act, tensor<688x256xbf16> -> tensor<?x?x688xbf16>
  %up0 = attn.matmul %n2, %wu {transpose_b}
      : !act, tensor<688x256xbf16> -> tensor<?x?x688xbf16>
  %gate = arith.mulf %gate0, %m256h : tensor<?x?x688xbf16>
  %up = arith.mulf %up0, %m256h : tensor<?x?x688xbf16>
  // silu(gate) * up: SiLU in f32, rounded once to bf16 as F.silu does,
  // then the product.
  %act = attn.elementwise %gate, %up : tensor<?x?x688xbf16>, tensor<?x?x688xbf16> -> tensor<?x?x688xbf16> {
  ^bb0(%g: f32, %u: f32):
    %one = arith.constant 1.0 : f32
    %neg = arith.negf %g : f32
    %e = math.exp %neg : f32
    %den = arith.addf %one, %e : f32
    %silu = arith.divf %g, %den : f32
    %rounded = arith.truncf %silu : f32 to bf16
    %s = arith.extf %rounded : bf16 to f32
    %p = arith.mulf %s, %u : f32
    attn.yield %p : f32
  }
  %down0 = attn.matmul %act, %wd {transpose_b}
      : tensor<?x?x688xbf16>, tensor<256x688xbf16> -> !act
  %down = arith.mulf %down0, %m688 : !act
  %y = arith.addf %h, %down : !act
  return %y : !act
}
