func.func private @value_at(index) -> f32

func.func @attention_score_region_with_nested_call(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %table = tensor.generate {
      ^bb0(%i: index):
        %x = func.call @value_at(%i) : (index) -> f32
        tensor.yield %x : f32
      } : tensor<4xf32>
      %c0 = arith.constant 0 : index
      %bias = tensor.extract %table[%c0] : tensor<4xf32>
      %r = arith.addf %s, %bias : f32
      attn.yield %r : f32
    }
  return
}
