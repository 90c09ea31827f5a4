// RUN: attn-opt %s -split-input-file -verify-diagnostics --convert-attn-to-tiled

// Tile sizes must be chosen before tiling.
func.func @no_tiles(%q: tensor<1x1x8x16xf32>) -> (tensor<1x1x8x16xf32>, tensor<1x1x8xf32>) {
  // expected-error @below {{tile sizes are not set: run attn-select-tiles first or give the op a `tiles` attribute}}
  %o, %l = attn.attention %q, %q, %q
      : tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>
      -> tensor<1x1x8x16xf32>, tensor<1x1x8xf32>
  return %o, %l : tensor<1x1x8x16xf32>, tensor<1x1x8xf32>
}

// -----

// The body must be the attention op alone, on the function's arguments.
func.func @computed_operand(%q: tensor<1x1x8x16xf32>) -> tensor<1x1x8x16xf32> {
  // expected-error @below {{code generation supports functions whose body is one attn.attention on the function's arguments, returning its results}}
  %k = attn.cast %q {scale = 2.0 : f32} : tensor<1x1x8x16xf32> to tensor<1x1x8x16xf32>
  %o, %l = attn.attention %q, %k, %q {tiles = #attn.tiles<block_m = 8, block_n = 8>}
      : tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>
      -> tensor<1x1x8x16xf32>, tensor<1x1x8xf32>
  return %o : tensor<1x1x8x16xf32>
}

// -----

// Each result may be returned once.
func.func @returned_twice(%q: tensor<1x1x8x16xf32>) -> (tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>) {
  %o, %l = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 8, block_n = 8>}
      : tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>
      -> tensor<1x1x8x16xf32>, tensor<1x1x8xf32>
  // expected-error @below {{the kernel function returns the attention output twice}}
  return %o, %o : tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>
}

// -----

// Something must be returned.
func.func @returns_nothing(%q: tensor<1x1x8x16xf32>) {
  %o, %l = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 8, block_n = 8>}
      : tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>
      -> tensor<1x1x8x16xf32>, tensor<1x1x8xf32>
  // expected-error @below {{a kernel function must return the attention output, its lse, or both}}
  return
}
