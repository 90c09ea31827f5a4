memref.global "private" constant @allowed_keys : memref<64xi1> = dense<true>

func.func @attention_mask_region_with_memref_load(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %table = memref.get_global @allowed_keys : memref<64xi1>
      %ok = memref.load %table[%ki] : memref<64xi1>
      attn.yield %ok : i1
    }
  return
}
