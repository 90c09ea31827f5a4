// The attnc side of bench/variants.py: the masks and score modifications
// the forward-parity issue measures against FlexAttention, bf16, each with
// the shapes of its case.
// Compile: attnc bench/variants.mlir --target=sm_90a -o variants.attnpkg

// Causal sliding window: each query sees itself and the 1024 keys before it
// (Mistral style), 16 heads of dim 128.
func.func @window(%q: tensor<?x16x?x128xbf16>, %k: tensor<?x16x?x128xbf16>,
                  %v: tensor<?x16x?x128xbf16>)
    -> (tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {causal, window_left = 1024 : i64}
      : tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16>,
        tensor<?x16x?x128xbf16>
      -> tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>
  return %o, %l : tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>
}

// ALiBi under a causal mask, 16 heads of dim 64: score - slope(h) * (q - k)
// with the standard slopes of 16 heads, slope(h) = 2^(-(h + 1) / 2).
func.func @alibi(%q: tensor<?x16x?x64xbf16>, %k: tensor<?x16x?x64xbf16>,
                 %v: tensor<?x16x?x64xbf16>)
    -> (tensor<?x16x?x64xbf16>, tensor<?x16x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {causal}
      : tensor<?x16x?x64xbf16>, tensor<?x16x?x64xbf16>, tensor<?x16x?x64xbf16>
      -> tensor<?x16x?x64xbf16>, tensor<?x16x?xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %one = arith.constant 1 : index
      %half = arith.constant -0.5 : f32
      %h1 = arith.addi %h, %one : index
      %h1i = arith.index_cast %h1 : index to i64
      %h1f = arith.sitofp %h1i : i64 to f32
      %exponent = arith.mulf %h1f, %half : f32
      %slope = math.exp2 %exponent : f32
      %dist = arith.subi %qi, %ki : index
      %disti = arith.index_cast %dist : index to i64
      %distf = arith.sitofp %disti : i64 to f32
      %bias = arith.mulf %slope, %distf : f32
      %r = arith.subf %s, %bias : f32
      attn.yield %r : f32
    }
  return %o, %l : tensor<?x16x?x64xbf16>, tensor<?x16x?xf32>
}

// Gemma-style logit softcapping 50 * tanh(s / 50) under a causal mask, 8
// heads of dim 256.
func.func @softcap(%q: tensor<?x8x?x256xbf16>, %k: tensor<?x8x?x256xbf16>,
                   %v: tensor<?x8x?x256xbf16>)
    -> (tensor<?x8x?x256xbf16>, tensor<?x8x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {causal}
      : tensor<?x8x?x256xbf16>, tensor<?x8x?x256xbf16>, tensor<?x8x?x256xbf16>
      -> tensor<?x8x?x256xbf16>, tensor<?x8x?xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %cap = arith.constant 50.0 : f32
      %x = arith.divf %s, %cap : f32
      %t = math.tanh %x : f32
      %r = arith.mulf %t, %cap : f32
      attn.yield %r : f32
    }
  return %o, %l : tensor<?x8x?x256xbf16>, tensor<?x8x?xf32>
}
