func.func @linear_attention_favor(%q: tensor<?x4x?x64xf16>, %k: tensor<?x4x?x64xf16>,
                                  %v: tensor<?x4x?x64xf16>) -> tensor<?x4x?x64xf16> {
  %out = attn.linear_attention favor %q, %k, %v {num_features = 256, seed = 42}
      : tensor<?x4x?x64xf16>, tensor<?x4x?x64xf16>, tensor<?x4x?x64xf16>
      -> tensor<?x4x?x64xf16>
  return %out : tensor<?x4x?x64xf16>
}
