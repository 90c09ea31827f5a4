// RUN: attn-opt %s --attn-derive-backward --attn-derive-train-step=max-flat-elements=100 -split-input-file -verify-diagnostics

// A parameter is whole in one chunk, so none may be larger than a chunk.
// expected-error @below {{attn.train: parameter 'w' has 128 elements, more than a flat state tensor holds (100)}}
func.func @parameter_larger_than_a_chunk(%x: tensor<?x16xf32>, %labels: tensor<?xi32>, %w: tensor<8x16xf32> {attn.name = "w"}) -> tensor<f32>
    attributes {attn.backward, attn.train} {
  %y = attn.matmul %x, %w {transpose_b} : tensor<?x16xf32>, tensor<8x16xf32> -> tensor<?x8xf32>
  %l, %lse = attn.cross_entropy %y, %labels {ignore_index = -100 : i64}
      : tensor<?x8xf32>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  %t = attn.token_mean %l, %labels {ignore_index = -100 : i64}
      : tensor<?xf32>, tensor<?xi32> -> tensor<f32>
  return %t : tensor<f32>
}

// -----

// Two chunks (64 + 64 elements): params_1 is a state input's name.
// expected-error @below {{attn.train: input 'params_1' has the name of an input of the training step (params, m, v, grad, lr, step, loss_scale, or a chunk's params_<c>, ...); rename it}}
func.func @data_named_like_a_chunk(%x: tensor<?x8xf32> {attn.name = "params_1"}, %labels: tensor<?xi32>, %w1: tensor<8x8xf32>, %w2: tensor<8x8xf32>) -> tensor<f32>
    attributes {attn.backward, attn.train} {
  %h = attn.matmul %x, %w1 {transpose_b} : tensor<?x8xf32>, tensor<8x8xf32> -> tensor<?x8xf32>
  %y = attn.matmul %h, %w2 {transpose_b} : tensor<?x8xf32>, tensor<8x8xf32> -> tensor<?x8xf32>
  %l, %lse = attn.cross_entropy %y, %labels {ignore_index = -100 : i64}
      : tensor<?x8xf32>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  %t = attn.token_mean %l, %labels {ignore_index = -100 : i64}
      : tensor<?xf32>, tensor<?xi32> -> tensor<f32>
  return %t : tensor<f32>
}
