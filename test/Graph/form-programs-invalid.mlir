// RUN: attn-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(attn-form-programs)'

// Functions hold kernel ops, row slices, row concatenations and reshapes
// between rank 1 and static shapes only:
// linear attention has no kernel yet.
func.func @linear(%q: tensor<1x1x8x16xf32>) -> tensor<1x1x8x16xf32> {
  // expected-error @below {{code generation does not support attn.linear_attention in a function; functions hold attn ops (and float arith and math ops on tensors, which attn-fuse-elementwise turns into attn.elementwise), row slices, row concatenations and reshapes of rank-1 values}}
  %o = attn.linear_attention elu1 %q, %q, %q
      : tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32> -> tensor<1x1x8x16xf32>
  return %o : tensor<1x1x8x16xf32>
}

// -----

// Nor ops of other dialects, even on tensors.
func.func @constant(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{code generation does not support arith.constant in a function; functions hold attn ops (and float arith and math ops on tensors, which attn-fuse-elementwise turns into attn.elementwise), row slices, row concatenations and reshapes of rank-1 values}}
  %c = arith.constant dense<1.0> : tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// Arguments must be tensors of a dtype a package can carry: no i8.
// expected-error @below {{functions take and return ranked tensors of a package element type, got 'tensor<4xi8>'}}
func.func @int8(%x: tensor<4xi8>, %y: tensor<4xf32>) -> tensor<4xbf16> {
  %c = attn.cast %y : tensor<4xf32> to tensor<4xbf16>
  return %c : tensor<4xbf16>
}

// -----

// ... and tensors, not buffers.
// expected-error @below {{functions take and return ranked tensors of a package element type, got 'memref<4xf32>'}}
func.func @buffer(%x: memref<4xf32>, %y: tensor<4xf32>) -> tensor<4xbf16> {
  %c = attn.cast %y : tensor<4xf32> to tensor<4xbf16>
  return %c : tensor<4xbf16>
}

// -----

// Scalars are not tensors either (checked before any shape is read).
// expected-error @below {{functions take and return ranked tensors of a package element type, got 'f32'}}
func.func @scalar_argument(%s: f32, %x: tensor<4xf32>) -> tensor<4xbf16> {
  %c = attn.cast %x : tensor<4xf32> to tensor<4xbf16>
  return %c : tensor<4xbf16>
}

// -----

// Nor are unranked tensors.
// expected-error @below {{functions take and return ranked tensors of a package element type, got 'tensor<*xf32>'}}
func.func @unranked_argument(%u: tensor<*xf32>, %x: tensor<4xf32>) -> tensor<4xbf16> {
  %c = attn.cast %x : tensor<4xf32> to tensor<4xbf16>
  return %c : tensor<4xbf16>
}

// -----

// A scalar op in the body is not a kernel op.
func.func @scalar_result(%x: tensor<4xf32>) -> tensor<4xbf16> {
  // expected-error @below {{code generation does not support arith.constant in a function; functions hold attn ops (and float arith and math ops on tensors, which attn-fuse-elementwise turns into attn.elementwise), row slices, row concatenations and reshapes of rank-1 values}}
  %s = arith.constant 1.0 : f32
  %c = attn.cast %x : tensor<4xf32> to tensor<4xbf16>
  return %c : tensor<4xbf16>
}

// -----

// A program is straight-line: a function of several blocks is rejected.
// expected-error @below {{a compiled function is a single block of kernel ops; 'blocks' has 2 blocks}}
func.func @blocks(%x: tensor<4xf32>) -> tensor<4xf32> {
  llvm.br ^bb1
^bb1:
  return %x : tensor<4xf32>
}

// -----

// A program must write something.
// expected-error @below {{function 'nothing' returns nothing; a compiled function must return at least one tensor}}
func.func @nothing(%x: tensor<4xf32>) {
  %c = attn.cast %x : tensor<4xf32> to tensor<4xbf16>
  return
}

// -----

// Private functions are helpers, not entry points: nothing to compile.
// expected-error @below {{the module has no public function to compile}}
module {
  func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}

// -----

// The first failing function stops the pass; the diagnostic names it.
func.func @fine(%x: tensor<4xf32>) -> tensor<4xbf16> {
  %c = attn.cast %x : tensor<4xf32> to tensor<4xbf16>
  return %c : tensor<4xbf16>
}
// expected-error @below {{function 'broken' returns nothing; a compiled function must return at least one tensor}}
func.func @broken(%x: tensor<4xf32>) {
  return
}

// -----

// An in-place result needs an intermediate operand: here the accumulator
// is the caller's input.
func.func @in_place_input(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>, %acc: tensor<1x2x8x16xf32>)
    -> (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) {
  // expected-error @below {{result 2 updates operand 6 in place, so that operand must be an intermediate value read by nothing later and the result must not be returned directly}}
  %dk, %dv, %sum = attn.attention_grad_kv %q, %q, %q, %l, %l, %q, %acc
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
  return %sum, %dk, %dv : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
}

// -----

// A slice of a column range is no view of rows.
func.func @column_slice(%w: tensor<48x64xf32>) -> tensor<48x32xf32> {
  // expected-error @below {{a compiled function slices whole rows: a static offset and size along the first dim and static other dims, taken whole}}
  %s = tensor.extract_slice %w[0, 16] [48, 32] [1, 1] : tensor<48x64xf32> to tensor<48x32xf32>
  %c = attn.cast %s : tensor<48x32xf32> to tensor<48x32xf32>
  return %c : tensor<48x32xf32>
}

// -----

// Nor is a slice of every other row.
func.func @strided_slice(%w: tensor<48x64xf32>) -> tensor<24x64xf32> {
  // expected-error @below {{a compiled function slices whole rows: a static offset and size along the first dim and static other dims, taken whole}}
  %s = tensor.extract_slice %w[0, 0] [24, 64] [2, 1] : tensor<48x64xf32> to tensor<24x64xf32>
  %c = attn.cast %s : tensor<24x64xf32> to tensor<24x64xf32>
  return %c : tensor<24x64xf32>
}

// -----

// Concatenations are of rows.
func.func @column_concat(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x16xf32> {
  // expected-error @below {{a compiled function concatenates along the first dim, of static extents}}
  %c = tensor.concat dim(1) %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  return %c : tensor<4x16xf32>
}

// -----

// ... whose row counts the compiler knows, so that each input's view is
// static.
func.func @dynamic_concat(%a: tensor<?x8xf32>, %b: tensor<4x8xf32>) -> tensor<?x8xf32> {
  // expected-error @below {{a compiled function concatenates along the first dim, of static extents}}
  %c = tensor.concat dim(0) %a, %b : (tensor<?x8xf32>, tensor<4x8xf32>) -> tensor<?x8xf32>
  return %c : tensor<?x8xf32>
}

// -----

// A program expands only a rank-1 value: that is a view of its elements.
func.func @expand_matrix(%x: tensor<4x6xf32>) -> tensor<4x2x3xf32> {
  // expected-error @below {{a compiled function expands only a rank-1 value, to a static shape}}
  %e = tensor.expand_shape %x [[0], [1, 2]] output_shape [4, 2, 3] : tensor<4x6xf32> into tensor<4x2x3xf32>
  %c = attn.cast %e : tensor<4x2x3xf32> to tensor<4x2x3xf32>
  return %c : tensor<4x2x3xf32>
}

// -----

// A value collapses to rank 1 only into a concatenation, where it is
// written in its own shape.
func.func @collapse_returned(%x: tensor<4x6xf32>) -> tensor<24xf32> {
  %c = attn.cast %x : tensor<4x6xf32> to tensor<4x6xf32>
  // expected-error @below {{a compiled function collapses only a value of static shape to rank 1, read by nothing but a row concatenation}}
  %f = tensor.collapse_shape %c [[0, 1]] : tensor<4x6xf32> into tensor<24xf32>
  return %f : tensor<24xf32>
}
