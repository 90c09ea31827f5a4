// RUN: split-file %s %t
// RUN: attn-opt %t/ops.mlir -split-input-file -verify-diagnostics --convert-attn-to-gpu
// RUN: attn-opt %t/unknown-chip.mlir -verify-diagnostics --convert-attn-to-gpu=chip=sm_100
// RUN: attn-opt %t/host-chip.mlir -verify-diagnostics --convert-attn-to-gpu=chip=host

//--- ops.mlir
// The kernel must have been configured for a GPU: no tiles ...
func.func @no_tiles(%q: memref<1x1x8x16xf32>, %out: memref<1x1x8x16xf32>) {
  %0 = bufferization.to_tensor %q : memref<1x1x8x16xf32> to tensor<1x1x8x16xf32>
  // expected-error @below {{the kernel configuration is not set: run attn-kernel-config first}}
  %o, %l = attn.attention %0, %0, %0
      : tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>
      -> tensor<1x1x8x16xf32>, tensor<1x1x8xf32>
  bufferization.materialize_in_destination %o in writable %out : (tensor<1x1x8x16xf32>, memref<1x1x8x16xf32>) -> ()
  return
}

// -----

// A matmul is a library call on a GPU: attn-library-calls takes it before
// this lowering, which has no code for it.
func.func @matmul(%a: memref<8x16xf32>, %b: memref<16x4xf32>, %out: memref<8x4xf32>) {
  %0 = bufferization.to_tensor %a : memref<8x16xf32> to tensor<8x16xf32>
  %1 = bufferization.to_tensor %b : memref<16x4xf32> to tensor<16x4xf32>
  // expected-error @below {{GPU targets run attn.matmul as a library call (library = "cublaslt", then attn-library-calls); there is no generated GPU code for it}}
  %2 = attn.matmul %0, %1 {library = "cublaslt"} : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  bufferization.materialize_in_destination %2 in writable %out : (tensor<8x4xf32>, memref<8x4xf32>) -> ()
  return
}

// -----

// ... or host tiles, which leave the tensor-core kind open, are not enough.
func.func @host_tiles(%q: memref<1x1x8x16xf32>, %out: memref<1x1x8x16xf32>) {
  %0 = bufferization.to_tensor %q : memref<1x1x8x16xf32> to tensor<1x1x8x16xf32>
  // expected-error @below {{the kernel configuration is not set: run attn-kernel-config for a GPU target first}}
  %o, %l = attn.attention %0, %0, %0 {tiles = #attn.tiles<block_m = 8, block_n = 8>}
      : tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>
      -> tensor<1x1x8x16xf32>, tensor<1x1x8xf32>
  bufferization.materialize_in_destination %o in writable %out : (tensor<1x1x8x16xf32>, memref<1x1x8x16xf32>) -> ()
  return
}

// -----

// The scalar kernel's f32 tiles must fit the shared memory of a block.
func.func @scalar_too_large(%q: memref<1x1x?x256xf32>, %out: memref<1x1x?x256xf32>) {
  %0 = bufferization.to_tensor %q : memref<1x1x?x256xf32> to tensor<1x1x?x256xf32>
  // expected-error @below {{tiles 128x128 need 592384 bytes of shared memory per block, more than the 232448 an sm_90a block has}}
  %o, %l = attn.attention %0, %0, %0 {tiles = #attn.tiles<block_m = 128, block_n = 128, mma = none>}
      : tensor<1x1x?x256xf32>, tensor<1x1x?x256xf32>, tensor<1x1x?x256xf32>
      -> tensor<1x1x?x256xf32>, tensor<1x1x?xf32>
  bufferization.materialize_in_destination %o in writable %out : (tensor<1x1x?x256xf32>, memref<1x1x?x256xf32>) -> ()
  return
}

// -----

// So must the mma.sync kernel's Q tile and two stages of K and V tiles.
func.func @mma_sync_too_large(%q: memref<1x1x?x256xbf16>, %out: memref<1x1x?x256xbf16>) {
  %0 = bufferization.to_tensor %q : memref<1x1x?x256xbf16> to tensor<1x1x?x256xbf16>
  // expected-error @below {{tiles 128x128 need 337920 bytes of shared memory per block, more than the 232448 an sm_90a block has}}
  %o, %l = attn.attention %0, %0, %0 {tiles = #attn.tiles<block_m = 128, block_n = 128, mma = mma_sync>}
      : tensor<1x1x?x256xbf16>, tensor<1x1x?x256xbf16>, tensor<1x1x?x256xbf16>
      -> tensor<1x1x?x256xbf16>, tensor<1x1x?xf32>
  bufferization.materialize_in_destination %o in writable %out : (tensor<1x1x?x256xbf16>, memref<1x1x?x256xbf16>) -> ()
  return
}

// -----

// A cast needs its block size ...
func.func @no_block_size(%x: memref<8xf32>, %y: memref<8xbf16>) {
  %0 = bufferization.to_tensor %x : memref<8xf32> to tensor<8xf32>
  // expected-error @below {{the kernel configuration is not set: run attn-kernel-config first}}
  %1 = attn.cast %0 : tensor<8xf32> to tensor<8xbf16>
  bufferization.materialize_in_destination %1 in writable %y : (tensor<8xbf16>, memref<8xbf16>) -> ()
  return
}

// -----

// ... and element types it converts.
func.func @fp8(%x: memref<8xf32>, %y: memref<8xf8E5M2>) {
  %0 = bufferization.to_tensor %x : memref<8xf32> to tensor<8xf32>
  // expected-error @below {{'attn.cast' op code generation converts between f32, f16 and bf16; 'f8E5M2' is not supported yet}}
  %1 = attn.cast %0 {block_size = 1024 : i64} : tensor<8xf32> to tensor<8xf8E5M2>
  bufferization.materialize_in_destination %1 in writable %y : (tensor<8xf8E5M2>, memref<8xf8E5M2>) -> ()
  return
}

// -----

// Linear attention has no kernel.
func.func @linear(%q: memref<1x1x8x16xf32>, %out: memref<1x1x8x16xf32>) {
  %0 = bufferization.to_tensor %q : memref<1x1x8x16xf32> to tensor<1x1x8x16xf32>
  // expected-error @below {{code generation does not support attn.linear_attention yet}}
  %o = attn.linear_attention relu %0, %0, %0
      : tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32> -> tensor<1x1x8x16xf32>
  bufferization.materialize_in_destination %o in writable %out : (tensor<1x1x8x16xf32>, memref<1x1x8x16xf32>) -> ()
  return
}

// -----

// A kernel op on the function's tensors (before program formation) is not
// in destination-passing form.
func.func @not_destination_passing(%q: tensor<1x1x8x16xf32>) -> tensor<1x1x8x16xf32> {
  // expected-error @below {{expected a kernel op in destination-passing form (run attn-form-programs first): an operand is not read from a buffer (bufferization.to_tensor)}}
  %o, %l = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 8, block_n = 8, mma = none>}
      : tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>
      -> tensor<1x1x8x16xf32>, tensor<1x1x8xf32>
  return %o : tensor<1x1x8x16xf32>
}

//--- unknown-chip.mlir
// The chip is a target description's name.
// expected-error @below {{unknown target 'sm_100'; expected host or sm_90a}}
module {
}

//--- host-chip.mlir
// expected-error @below {{'host' is not a GPU chip}}
module {
}
