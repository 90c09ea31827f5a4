// Prefix-LM: the first 64 positions (the prompt) are visible to every query,
// the rest causally. A mask region, classified per tile by the compiler.
//
// EXAMPLE-RUN: --fn prefix_lm --shape Nq=1000 --shape Nk=1000
func.func @prefix_lm(%q: tensor<1x4x?x64xf32>, %k: tensor<1x4x?x64xf32>,
                     %v: tensor<1x4x?x64xf32>)
    -> (tensor<1x4x?x64xf32>, tensor<1x4x?xf32>) {
  %out, %lse = attn.attention %q, %k, %v
      : tensor<1x4x?x64xf32>, tensor<1x4x?x64xf32>, tensor<1x4x?x64xf32>
      -> tensor<1x4x?x64xf32>, tensor<1x4x?xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %prefix_len = arith.constant 64 : index
      %in_prefix = arith.cmpi slt, %ki, %prefix_len : index
      %causal = arith.cmpi sle, %ki, %qi : index
      %allowed = arith.ori %in_prefix, %causal : i1
      attn.yield %allowed : i1
    }
  return %out, %lse : tensor<1x4x?x64xf32>, tensor<1x4x?xf32>
}
