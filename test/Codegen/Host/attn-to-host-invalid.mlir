// RUN: attn-opt %s -split-input-file -verify-diagnostics --convert-attn-to-host

// Tiles must be chosen before the lowering.
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

// So must a cast's block size.
func.func @no_block_size(%x: memref<8xf32>, %y: memref<8xbf16>) {
  %0 = bufferization.to_tensor %x : memref<8xf32> to tensor<8xf32>
  // expected-error @below {{the kernel configuration is not set: run attn-kernel-config first}}
  %1 = attn.cast %0 : tensor<8xf32> to tensor<8xbf16>
  bufferization.materialize_in_destination %1 in writable %y : (tensor<8xbf16>, memref<8xbf16>) -> ()
  return
}

// -----

// Casts to fp8 verify but have no kernel yet.
func.func @fp8(%x: memref<8xf32>, %y: memref<8xf8E4M3FN>) {
  %0 = bufferization.to_tensor %x : memref<8xf32> to tensor<8xf32>
  // expected-error @below {{'attn.cast' op code generation converts between f32, f16 and bf16; 'f8E4M3FN' is not supported yet}}
  %1 = attn.cast %0 {block_size = 1024 : i64} : tensor<8xf32> to tensor<8xf8E4M3FN>
  bufferization.materialize_in_destination %1 in writable %y : (tensor<8xf8E4M3FN>, memref<8xf8E4M3FN>) -> ()
  return
}

// -----

// Nor from fp8.
func.func @from_fp8(%x: memref<8xf8E5M2>, %y: memref<8xf32>) {
  %0 = bufferization.to_tensor %x : memref<8xf8E5M2> to tensor<8xf8E5M2>
  // expected-error @below {{'attn.cast' op code generation converts between f32, f16 and bf16; 'f8E5M2' is not supported yet}}
  %1 = attn.cast %0 {block_size = 1024 : i64} : tensor<8xf8E5M2> to tensor<8xf32>
  bufferization.materialize_in_destination %1 in writable %y : (tensor<8xf32>, memref<8xf32>) -> ()
  return
}

// -----

// Linear attention has no kernel.
func.func @linear(%q: memref<1x1x8x16xf32>, %out: memref<1x1x8x16xf32>) {
  %0 = bufferization.to_tensor %q : memref<1x1x8x16xf32> to tensor<1x1x8x16xf32>
  // expected-error @below {{code generation does not support attn.linear_attention yet}}
  %o = attn.linear_attention elu1 %0, %0, %0
      : tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32> -> tensor<1x1x8x16xf32>
  bufferization.materialize_in_destination %o in writable %out : (tensor<1x1x8x16xf32>, memref<1x1x8x16xf32>) -> ()
  return
}

// -----

// A kernel op on the function's tensors (before program formation) is not
// in destination-passing form.
func.func @not_destination_passing(%q: tensor<1x1x8x16xf32>) -> tensor<1x1x8x16xf32> {
  // expected-error @below {{expected a kernel op in destination-passing form (run attn-form-programs first): an operand is not read from a buffer (bufferization.to_tensor)}}
  %o, %l = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 8, block_n = 8>}
      : tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>
      -> tensor<1x1x8x16xf32>, tensor<1x1x8xf32>
  return %o : tensor<1x1x8x16xf32>
}

// -----

// A result is written into one buffer.
func.func @written_twice(%x: memref<8xf32>, %y: memref<8xbf16>, %z: memref<8xbf16>) {
  %0 = bufferization.to_tensor %x : memref<8xf32> to tensor<8xf32>
  // expected-error @below {{expected a kernel op in destination-passing form (run attn-form-programs first): a result is not written into exactly one buffer (bufferization.materialize_in_destination)}}
  %1 = attn.cast %0 {block_size = 1024 : i64} : tensor<8xf32> to tensor<8xbf16>
  bufferization.materialize_in_destination %1 in writable %y : (tensor<8xbf16>, memref<8xbf16>) -> ()
  bufferization.materialize_in_destination %1 in writable %z : (tensor<8xbf16>, memref<8xbf16>) -> ()
  return
}

// -----

// A matmul given to a GPU library has no host code.
func.func @library_matmul(%a: memref<8x16xf32>, %b: memref<16x4xf32>, %out: memref<8x4xf32>) {
  %0 = bufferization.to_tensor %a : memref<8x16xf32> to tensor<8x16xf32>
  %1 = bufferization.to_tensor %b : memref<16x4xf32> to tensor<16x4xf32>
  // expected-error @below {{the host runs attn.matmul with its own tiles; library "cublaslt" is for GPU targets (run attn-kernel-config for the host)}}
  %2 = attn.matmul %0, %1 {library = "cublaslt"} : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  bufferization.materialize_in_destination %2 in writable %out : (tensor<8x4xf32>, memref<8x4xf32>) -> ()
  return
}
