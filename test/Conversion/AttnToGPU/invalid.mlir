// RUN: attn-opt %s -split-input-file -verify-diagnostics --convert-attn-to-gpu

// The block's f32 tiles must fit the shared memory of an sm_90a block.
func.func @too_much_shared_memory(%q: tensor<1x1x?x256xf32>) -> tensor<1x1x?x256xf32> {
  // expected-error @below {{tiles 128x128 need 592384 bytes of shared memory per block, more than the 232448 an sm_90a block has}}
  %o, %l = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 128, block_n = 128>}
      : tensor<1x1x?x256xf32>, tensor<1x1x?x256xf32>, tensor<1x1x?x256xf32>
      -> tensor<1x1x?x256xf32>, tensor<1x1x?xf32>
  return %o : tensor<1x1x?x256xf32>
}

// -----

func.func @no_tiles(%q: tensor<1x1x8x16xf32>) -> tensor<1x1x8x16xf32> {
  // expected-error @below {{tile sizes are not set: run attn-select-tiles first or give the op a `tiles` attribute}}
  %o, %l = attn.attention %q, %q, %q
      : tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>
      -> tensor<1x1x8x16xf32>, tensor<1x1x8xf32>
  return %o : tensor<1x1x8x16xf32>
}
