// A program of four kernels: f32 activations are cast to bf16 (three cast
// kernels into intermediate buffers), then causal attention runs on tensor
// cores in bf16. `attnc --explain` lists the buffers and kernels.
//
// EXAMPLE-RUN: --fn attention_f32_inputs --shape B=2 --shape Nq=1024 --shape Nk=1024
func.func @attention_f32_inputs(%q: tensor<?x8x?x128xf32>, %k: tensor<?x8x?x128xf32>,
                                %v: tensor<?x8x?x128xf32>)
    -> (tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>) {
  %qb = attn.cast %q : tensor<?x8x?x128xf32> to tensor<?x8x?x128xbf16>
  %kb = attn.cast %k : tensor<?x8x?x128xf32> to tensor<?x8x?x128xbf16>
  %vb = attn.cast %v : tensor<?x8x?x128xf32> to tensor<?x8x?x128xbf16>
  %out, %lse = attn.attention %qb, %kb, %vb {causal}
      : tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>
      -> tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>
  return %out, %lse : tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>
}
