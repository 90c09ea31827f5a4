func.func @attention_lse_rank_4(%q: tensor<?x4x?x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<?x4x?x32xf32>, tensor<?x4x?x32xf32>, tensor<?x4x?x32xf32>
      -> tensor<?x4x?x32xf32>, tensor<?x4x?x1xf32>
  return
}
