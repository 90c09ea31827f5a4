// RUN: attn-opt %s -attn-split-keys='key-ranges=-2' -verify-diagnostics

// expected-error @below {{key-ranges must be 0 (choose) or positive, got -2}}
func.func @negative(%q: tensor<1x8x1x64xbf16>) -> (tensor<1x8x1x64xbf16>, tensor<1x8x1xf32>) {
  %o, %l = attn.attention %q, %q, %q
      : tensor<1x8x1x64xbf16>, tensor<1x8x1x64xbf16>, tensor<1x8x1x64xbf16>
      -> tensor<1x8x1x64xbf16>, tensor<1x8x1xf32>
  return %o, %l : tensor<1x8x1x64xbf16>, tensor<1x8x1xf32>
}
