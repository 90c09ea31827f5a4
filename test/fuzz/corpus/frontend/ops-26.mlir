func.func @cast_every_type(%x: tensor<8x128xf32>, %h: tensor<?x64xbf16>)
    -> (tensor<8x128xf32>, tensor<8x128xf16>, tensor<8x128xbf16>,
        tensor<8x128xf8E4M3FN>, tensor<8x128xf8E5M2>, tensor<?x64xf32>) {
  %0 = attn.cast %x : tensor<8x128xf32> to tensor<8x128xf32>
  %1 = attn.cast %x : tensor<8x128xf32> to tensor<8x128xf16>
  %2 = attn.cast %x : tensor<8x128xf32> to tensor<8x128xbf16>
  %3 = attn.cast %x : tensor<8x128xf32> to tensor<8x128xf8E4M3FN>
  %4 = attn.cast %x : tensor<8x128xf32> to tensor<8x128xf8E5M2>
  %5 = attn.cast %h : tensor<?x64xbf16> to tensor<?x64xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<8x128xf32>, tensor<8x128xf16>, tensor<8x128xbf16>,
                                  tensor<8x128xf8E4M3FN>, tensor<8x128xf8E5M2>, tensor<?x64xf32>
}
