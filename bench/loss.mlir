// A GPT-2-sized LM head and loss in bf16, for bench/loss.py: logits = h
// E^T over a vocabulary of 50304, the per-token cross-entropy in f32 and
// its mean over the tokens that count, forward and backward (dh, dE); and
// the token embedding E[ids], forward and backward (dE).
func.func @lm_loss(%h: tensor<?x768xbf16>, %e: tensor<50304x768xbf16>,
                   %labels: tensor<?xi32>) -> tensor<f32>
    attributes {attn.backward} {
  %logits = attn.matmul %h, %e {transpose_b}
      : tensor<?x768xbf16>, tensor<50304x768xbf16> -> tensor<?x50304xbf16>
  %losses, %lse = attn.cross_entropy %logits, %labels {ignore_index = -100 : i64}
      : tensor<?x50304xbf16>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  %loss = attn.token_mean %losses, %labels {ignore_index = -100 : i64}
      : tensor<?xf32>, tensor<?xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @embed(%e: tensor<50304x768xbf16>, %ids: tensor<?xi32>)
    -> tensor<?x768xbf16> attributes {attn.backward} {
  %x = attn.embedding %e, %ids
      : tensor<50304x768xbf16>, tensor<?xi32> -> tensor<?x768xbf16>
  return %x : tensor<?x768xbf16>
}
