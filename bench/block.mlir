// The Llama-style block of examples/llama_block.mlir at benchmark size, for
// bench/block.py: d_model 2048, 16 query heads over 4 key/value heads of
// 128, SwiGLU hidden 5632, bf16.
!act = tensor<?x?x2048xbf16>
!qh = tensor<?x16x?x128xbf16>
!kvh = tensor<?x4x?x128xbf16>
!tab = tensor<?x64xf32>
func.func @llama_block(%x: !act, %cos: !tab, %sin: !tab,
                       %g1: tensor<2048xbf16>, %wq: tensor<2048x2048xbf16>,
                       %wk: tensor<512x2048xbf16>, %wv: tensor<512x2048xbf16>,
                       %wo: tensor<2048x2048xbf16>, %g2: tensor<2048xbf16>,
                       %wg: tensor<5632x2048xbf16>, %wu: tensor<5632x2048xbf16>,
                       %wd: tensor<2048x5632xbf16>) -> !act
    attributes {attn.backward} {
  // Attention sublayer.
  %n1, %r1 = attn.rms_norm %x, %g1 {epsilon = 1.0e-05 : f32}
      : !act, tensor<2048xbf16> -> !act, tensor<?x?xf32>
  %q = attn.matmul %n1, %wq {transpose_b}
      : !act, tensor<2048x2048xbf16> -> !act
  %k = attn.matmul %n1, %wk {transpose_b}
      : !act, tensor<512x2048xbf16> -> tensor<?x?x512xbf16>
  %v = attn.matmul %n1, %wv {transpose_b}
      : !act, tensor<512x2048xbf16> -> tensor<?x?x512xbf16>
  %qh = attn.split_heads %q, %cos, %sin : !act, !tab, !tab -> !qh
  %kh = attn.split_heads %k, %cos, %sin
      : tensor<?x?x512xbf16>, !tab, !tab -> !kvh
  %vh = attn.split_heads %v : tensor<?x?x512xbf16> -> !kvh
  %o, %lse = attn.attention %qh, %kh, %vh {causal}
      : !qh, !kvh, !kvh -> !qh, tensor<?x16x?xf32>
  %om = attn.merge_heads %o : !qh -> !act
  %proj = attn.matmul %om, %wo {transpose_b}
      : !act, tensor<2048x2048xbf16> -> !act
  %h = arith.addf %x, %proj : !act
  // MLP sublayer: SwiGLU.
  %n2, %r2 = attn.rms_norm %h, %g2 {epsilon = 1.0e-05 : f32}
      : !act, tensor<2048xbf16> -> !act, tensor<?x?xf32>
  %gate = attn.matmul %n2, %wg {transpose_b}
      : !act, tensor<5632x2048xbf16> -> tensor<?x?x5632xbf16>
  %up = attn.matmul %n2, %wu {transpose_b}
      : !act, tensor<5632x2048xbf16> -> tensor<?x?x5632xbf16>
  // silu(gate) * up: SiLU in f32, rounded once to bf16 as F.silu does,
  // then the product.
  %act = attn.elementwise %gate, %up : tensor<?x?x5632xbf16>, tensor<?x?x5632xbf16> -> tensor<?x?x5632xbf16> {
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
  %down = attn.matmul %act, %wd {transpose_b}
      : tensor<?x?x5632xbf16>, tensor<2048x5632xbf16> -> !act
  %y = arith.addf %h, %down : !act
  return %y : !act
}
