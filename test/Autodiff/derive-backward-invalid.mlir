// RUN: attn-opt %s -split-input-file -attn-derive-backward -verify-diagnostics

// An argument nothing differentiable reads has no gradient.
// expected-error @below {{argument 3 of 'unused' reaches no differentiable result; it has no gradient}}
func.func @unused(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %extra: tensor<4xf32>)
    -> (tensor<1x2x8x16xf32>, tensor<1x2x8xf32>) attributes {attn.backward} {
  %out, %lse = attn.attention %q, %k, %v
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8xf32>
  return %out, %lse : tensor<1x2x8x16xf32>, tensor<1x2x8xf32>
}

// -----

// An op without a gradient rule on the path to a result.
func.func @no_rule(%q: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
    attributes {attn.backward} {
  // expected-error @below {{cannot differentiate attn.linear_attention: it has no gradient rule (VJPOpInterface)}}
  %out = attn.linear_attention elu1 %q, %q, %q
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  return %out : tensor<1x2x8x16xf32>
}

// -----

// The backward function's name is taken.
// expected-error @below {{cannot derive 'taken_bwd': the module already has a symbol of that name}}
func.func @taken(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>)
    -> (tensor<1x2x8x16xf32>, tensor<1x2x8xf32>) attributes {attn.backward} {
  %out, %lse = attn.attention %q, %k, %v
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8xf32>
  return %out, %lse : tensor<1x2x8x16xf32>, tensor<1x2x8xf32>
}
func.func @taken_bwd() {
  return
}

// -----

// A cast that reads the dq accumulator's swizzled rows belongs to the
// backward's own programs and has no gradient.
func.func @swizzled_cast(%q: tensor<1x2x8x32xf32>, %k: tensor<1x2x8x32xbf16>, %v: tensor<1x2x8x32xbf16>)
    -> (tensor<1x2x8x32xbf16>, tensor<1x2x8xf32>) attributes {attn.backward} {
  // expected-error @below {{'attn.cast' op with in_row_swizzle has no gradient}}
  %qb = attn.cast %q {in_row_swizzle = 16 : i64} : tensor<1x2x8x32xf32> to tensor<1x2x8x32xbf16>
  %out, %lse = attn.attention %qb, %k, %v
      : tensor<1x2x8x32xbf16>, tensor<1x2x8x32xbf16>, tensor<1x2x8x32xbf16>
      -> tensor<1x2x8x32xbf16>, tensor<1x2x8xf32>
  return %out, %lse : tensor<1x2x8x32xbf16>, tensor<1x2x8xf32>
}

// -----

// An elementwise body through an op that is piecewise constant in an input.
func.func @floor(%x: tensor<8xf32>) -> tensor<8xf32> attributes {attn.backward} {
  %y = attn.elementwise %x : tensor<8xf32> -> tensor<8xf32> {
  ^bb0(%a: f32):
    // expected-error @below {{'math.floor' op is piecewise constant in input 0, so the gradient through it is not defined}}
    %f = math.floor %a : f32
    attn.yield %f : f32
  }
  return %y : tensor<8xf32>
}
