// RUN: attn-opt %s --attn-derive-backward --attn-derive-train-step -split-input-file -verify-diagnostics

// expected-error @below {{expected attn.train to be a unit attribute or a dictionary, got 3 : i64}}
func.func @not_a_dictionary(%x: tensor<?x8xf32>, %labels: tensor<?xi32>, %w: tensor<8xf32>) -> tensor<f32>
    attributes {attn.backward, attn.train = 3} {
  %y, %r = attn.rms_norm %x, %w {epsilon = 1.0e-05 : f32}
      : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>, tensor<?xf32>
  %l, %lse = attn.cross_entropy %y, %labels {ignore_index = -100 : i64}
      : tensor<?x8xf32>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  %t = attn.token_mean %l, %labels {ignore_index = -100 : i64}
      : tensor<?xf32>, tensor<?xi32> -> tensor<f32>
  return %t : tensor<f32>
}

// -----

// expected-error @below {{attn.train: unknown entry or not a float: momentum = 9.000000e-01 : f64 (expected beta1, beta2, epsilon, weight_decay, max_grad_norm, compute = f16 or bf16, remat or deterministic = true or false)}}
func.func @unknown_entry(%x: tensor<?x8xf32>, %labels: tensor<?xi32>, %w: tensor<8xf32>) -> tensor<f32>
    attributes {attn.backward, attn.train = {momentum = 0.9}} {
  %y, %r = attn.rms_norm %x, %w {epsilon = 1.0e-05 : f32}
      : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>, tensor<?xf32>
  %l, %lse = attn.cross_entropy %y, %labels {ignore_index = -100 : i64}
      : tensor<?x8xf32>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  %t = attn.token_mean %l, %labels {ignore_index = -100 : i64}
      : tensor<?xf32>, tensor<?xi32> -> tensor<f32>
  return %t : tensor<f32>
}

// -----

// expected-error @below {{attn.train: beta2 = 1.000000e+00 is out of range (betas in [0, 1), epsilon > 0, weight_decay and max_grad_norm >= 0)}}
func.func @beta_out_of_range(%x: tensor<?x8xf32>, %labels: tensor<?xi32>, %w: tensor<8xf32>) -> tensor<f32>
    attributes {attn.backward, attn.train = {beta2 = 1.0}} {
  %y, %r = attn.rms_norm %x, %w {epsilon = 1.0e-05 : f32}
      : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>, tensor<?xf32>
  %l, %lse = attn.cross_entropy %y, %labels {ignore_index = -100 : i64}
      : tensor<?x8xf32>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  %t = attn.token_mean %l, %labels {ignore_index = -100 : i64}
      : tensor<?xf32>, tensor<?xi32> -> tensor<f32>
  return %t : tensor<f32>
}

// -----

// expected-error @below {{attn.train: compute = f32 is not f16 or bf16}}
func.func @compute_f32(%x: tensor<?x8xf32>, %labels: tensor<?xi32>, %w: tensor<8xf32>) -> tensor<f32>
    attributes {attn.backward, attn.train = {compute = f32}} {
  %y, %r = attn.rms_norm %x, %w {epsilon = 1.0e-05 : f32}
      : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>, tensor<?xf32>
  %l, %lse = attn.cross_entropy %y, %labels {ignore_index = -100 : i64}
      : tensor<?x8xf32>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  %t = attn.token_mean %l, %labels {ignore_index = -100 : i64}
      : tensor<?xf32>, tensor<?xi32> -> tensor<f32>
  return %t : tensor<f32>
}

// -----

// expected-error @below {{attn.train: remat = 1 : i64 is not true or false}}
func.func @remat_number(%x: tensor<?x8xf32>, %labels: tensor<?xi32>, %w: tensor<8xf32>) -> tensor<f32>
    attributes {attn.backward, attn.train = {remat = 1}} {
  %y, %r = attn.rms_norm %x, %w {epsilon = 1.0e-05 : f32}
      : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>, tensor<?xf32>
  %l, %lse = attn.cross_entropy %y, %labels {ignore_index = -100 : i64}
      : tensor<?x8xf32>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  %t = attn.token_mean %l, %labels {ignore_index = -100 : i64}
      : tensor<?xf32>, tensor<?xi32> -> tensor<f32>
  return %t : tensor<f32>
}

// -----

// expected-error @below {{attn.train: deterministic = "yes" is not true or false}}
func.func @deterministic_string(%x: tensor<?x8xf32>, %labels: tensor<?xi32>, %w: tensor<8xf32>) -> tensor<f32>
    attributes {attn.backward, attn.train = {deterministic = "yes"}} {
  %y, %r = attn.rms_norm %x, %w {epsilon = 1.0e-05 : f32}
      : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>, tensor<?xf32>
  %l, %lse = attn.cross_entropy %y, %labels {ignore_index = -100 : i64}
      : tensor<?x8xf32>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  %t = attn.token_mean %l, %labels {ignore_index = -100 : i64}
      : tensor<?xf32>, tensor<?xi32> -> tensor<f32>
  return %t : tensor<f32>
}

// -----

// expected-error @below {{attn.train needs the backward function: mark the function attn.backward too}}
func.func @no_backward(%x: tensor<?x8xf32>, %labels: tensor<?xi32>, %w: tensor<8xf32>) -> tensor<f32>
    attributes {attn.train} {
  %y, %r = attn.rms_norm %x, %w {epsilon = 1.0e-05 : f32}
      : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>, tensor<?xf32>
  %l, %lse = attn.cross_entropy %y, %labels {ignore_index = -100 : i64}
      : tensor<?x8xf32>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  %t = attn.token_mean %l, %labels {ignore_index = -100 : i64}
      : tensor<?xf32>, tensor<?xi32> -> tensor<f32>
  return %t : tensor<f32>
}

// -----

// expected-error @below {{attn.train needs a function whose one differentiable result, its first, is a tensor<f32> loss}}
func.func @not_a_loss(%x: tensor<?x8xf32>, %w: tensor<8xf32>) -> tensor<?x8xf32>
    attributes {attn.backward, attn.train} {
  %y, %r = attn.rms_norm %x, %w {epsilon = 1.0e-05 : f32}
      : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>, tensor<?xf32>
  return %y : tensor<?x8xf32>
}

// -----

// expected-error @below {{attn.train: no argument of static shape takes a gradient, so nothing is trained}}
func.func @no_parameter(%x: tensor<?x8xf32>, %labels: tensor<?xi32>) -> tensor<f32>
    attributes {attn.backward, attn.train} {
  %l, %lse = attn.cross_entropy %x, %labels {ignore_index = -100 : i64}
      : tensor<?x8xf32>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  %t = attn.token_mean %l, %labels {ignore_index = -100 : i64}
      : tensor<?xf32>, tensor<?xi32> -> tensor<f32>
  return %t : tensor<f32>
}

// -----

// expected-error @below {{cannot derive 'taken_step': the module already has a symbol of that name}}
func.func @taken(%x: tensor<?x8xf32>, %labels: tensor<?xi32>, %w: tensor<8xf32>) -> tensor<f32>
    attributes {attn.backward, attn.train} {
  %y, %r = attn.rms_norm %x, %w {epsilon = 1.0e-05 : f32}
      : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>, tensor<?xf32>
  %l, %lse = attn.cross_entropy %y, %labels {ignore_index = -100 : i64}
      : tensor<?x8xf32>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  %t = attn.token_mean %l, %labels {ignore_index = -100 : i64}
      : tensor<?xf32>, tensor<?xi32> -> tensor<f32>
  return %t : tensor<f32>
}
func.func @taken_step() {
  return
}

// -----

// expected-error @below {{cannot derive 'taken_eval_eval': the module already has a symbol of that name}}
func.func @taken_eval(%x: tensor<?x8xf32>, %labels: tensor<?xi32>, %w: tensor<8xf32>) -> tensor<f32>
    attributes {attn.backward, attn.train} {
  %y, %r = attn.rms_norm %x, %w {epsilon = 1.0e-05 : f32}
      : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>, tensor<?xf32>
  %l, %lse = attn.cross_entropy %y, %labels {ignore_index = -100 : i64}
      : tensor<?x8xf32>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  %t = attn.token_mean %l, %labels {ignore_index = -100 : i64}
      : tensor<?xf32>, tensor<?xi32> -> tensor<f32>
  return %t : tensor<f32>
}
func.func @taken_eval_eval() {
  return
}

// -----

// The step's own inputs are params, m, v, grad, lr, step and loss_scale.
// expected-error @below {{attn.train: input 'm' has the name of an input of the training step (params, m, v, grad, lr, step, loss_scale, or a chunk's params_<c>, ...); rename it}}
func.func @data_named_like_state(%x: tensor<?x8xf32> {attn.name = "m"}, %labels: tensor<?xi32>, %w: tensor<8xf32>) -> tensor<f32>
    attributes {attn.backward, attn.train} {
  %y, %r = attn.rms_norm %x, %w {epsilon = 1.0e-05 : f32}
      : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>, tensor<?xf32>
  %l, %lse = attn.cross_entropy %y, %labels {ignore_index = -100 : i64}
      : tensor<?x8xf32>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  %t = attn.token_mean %l, %labels {ignore_index = -100 : i64}
      : tensor<?xf32>, tensor<?xi32> -> tensor<f32>
  return %t : tensor<f32>
}

// -----

// A parameter lies whole in one tensor of the flat state: at most 2^31 - 1
// elements (a larger state is split into chunks of whole parameters).
// expected-error @below {{attn.train: parameter 'arg2' has 2415919104 elements, more than a flat state tensor holds (2147483647)}}
func.func @too_many_parameters(%x: tensor<?x49152xf32>, %labels: tensor<?xi32>, %w: tensor<49152x49152xf32>) -> tensor<f32>
    attributes {attn.backward, attn.train} {
  %y = attn.matmul %x, %w : tensor<?x49152xf32>, tensor<49152x49152xf32> -> tensor<?x49152xf32>
  %l, %lse = attn.cross_entropy %y, %labels {ignore_index = -100 : i64}
      : tensor<?x49152xf32>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  %t = attn.token_mean %l, %labels {ignore_index = -100 : i64}
      : tensor<?xf32>, tensor<?xi32> -> tensor<f32>
  return %t : tensor<f32>
}
