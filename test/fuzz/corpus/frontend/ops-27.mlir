func.func @cast_with_scale(%x: tensor<8x128xf32>, %d: tensor<4xf64>, %e: tensor<f8E4M3FN>)
    -> (tensor<8x128xf32>, tensor<8x128xf16>, tensor<8x128xbf16>,
        tensor<8x128xf8E4M3FN>, tensor<8x128xf8E5M2>, tensor<4xf16>, tensor<f32>) {
  %0 = attn.cast %x {scale = 0.5 : f32} : tensor<8x128xf32> to tensor<8x128xf32>
  %1 = attn.cast %x {scale = 1024.0 : f32} : tensor<8x128xf32> to tensor<8x128xf16>
  %2 = attn.cast %x {scale = 1024.0 : f32} : tensor<8x128xf32> to tensor<8x128xbf16>
  %3 = attn.cast %x {scale = 448.0 : f32} : tensor<8x128xf32> to tensor<8x128xf8E4M3FN>
  %4 = attn.cast %x {scale = -0.25 : f32} : tensor<8x128xf32> to tensor<8x128xf8E5M2>
  %5 = attn.cast %d : tensor<4xf64> to tensor<4xf16>
  %6 = attn.cast %e {scale = 2.0 : f32} : tensor<f8E4M3FN> to tensor<f32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<8x128xf32>, tensor<8x128xf16>, tensor<8x128xbf16>,
      tensor<8x128xf8E4M3FN>, tensor<8x128xf8E5M2>, tensor<4xf16>, tensor<f32>
}
