// Causal sliding-window attention (Mistral style): each query sees itself
// and the 256 keys before it. f16, 8 heads of dim 64.
//
// EXAMPLE-RUN: --fn sliding_window --shape B=1 --shape Nq=2048 --shape Nk=2048
func.func @sliding_window(%q: tensor<?x8x?x64xf16>, %k: tensor<?x8x?x64xf16>,
                          %v: tensor<?x8x?x64xf16>)
    -> (tensor<?x8x?x64xf16>, tensor<?x8x?xf32>) {
  %out, %lse = attn.attention %q, %k, %v {causal, window_left = 256 : i64}
      : tensor<?x8x?x64xf16>, tensor<?x8x?x64xf16>, tensor<?x8x?x64xf16>
      -> tensor<?x8x?x64xf16>, tensor<?x8x?xf32>
  return %out, %lse : tensor<?x8x?x64xf16>, tensor<?x8x?xf32>
}
