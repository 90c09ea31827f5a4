func.func @attention_mask_prefix_lm(%q: tensor<1x4x256x64xf16>, %k: tensor<1x4x256x64xf16>,
                                    %v: tensor<1x4x256x64xf16>)
    -> (tensor<1x4x256x64xf16>, tensor<1x4x256xf32>) {
  %out, %lse = attn.attention %q, %k, %v
      : tensor<1x4x256x64xf16>, tensor<1x4x256x64xf16>, tensor<1x4x256x64xf16>
      -> tensor<1x4x256x64xf16>, tensor<1x4x256xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %prefix = arith.constant 64 : index
      %in_prefix = arith.cmpi ult, %ki, %prefix : index
      %causal = arith.cmpi ule, %ki, %qi : index
      %allowed = arith.ori %in_prefix, %causal : i1
      attn.yield %allowed : i1
    }
  return %out, %lse : tensor<1x4x256x64xf16>, tensor<1x4x256xf32>
}
