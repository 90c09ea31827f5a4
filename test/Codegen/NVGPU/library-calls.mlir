// RUN: attn-opt %s -split-input-file --attn-library-calls | FileCheck %s

// A matmul the kernel config gave to cuBLASLt becomes a library step: its
// launches name the routine and have no grid, and its kernel function goes.
// A matmul with host tiles, and every other kernel, stays code.

// CHECK-LABEL: func.func @program(
// CHECK:         attnrt.launch @attnc_kernels::@blas (%{{.*}}, %{{.*}}, %{{.*}}) {library = "cublaslt_matmul"}
// CHECK:         attnrt.launch @attnc_kernels::@tiled (
// CHECK-NOT:     library
// CHECK:         module @attnc_kernels {
// CHECK-NOT:       func.func @blas
// CHECK:           func.func @tiled
!x = memref<?x64xbf16>
!w = memref<64x32xbf16>
!y = memref<?x32xbf16>
func.func @program(%x: !x {attnrt.name = "x", attnrt.shape = ["N", 64]},
                   %w: !w {attnrt.name = "w", attnrt.shape = [64, 32]},
                   %y: !y {attnrt.name = "y", attnrt.shape = ["N", 32]},
                   %z: !y {attnrt.name = "z", attnrt.shape = ["N", 32]})
    attributes {attnrt.num_inputs = 2 : i64} {
  attnrt.launch @attnc_kernels::@blas (%x, %w, %y) : !x, !w, !y
  attnrt.launch @attnc_kernels::@tiled (%x, %w, %z) : !x, !w, !y
  return
}
module @attnc_kernels {
  func.func @blas(%x: !x, %w: !w, %y: !y) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %x : !x to tensor<?x64xbf16>
    %1 = bufferization.to_tensor %w : !w to tensor<64x32xbf16>
    %2 = attn.matmul %0, %1 {library = "cublaslt"} : tensor<?x64xbf16>, tensor<64x32xbf16> -> tensor<?x32xbf16>
    bufferization.materialize_in_destination %2 in writable %y : (tensor<?x32xbf16>, !y) -> ()
    return
  }
  func.func @tiled(%x: !x, %w: !w, %y: !y) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %x : !x to tensor<?x64xbf16>
    %1 = bufferization.to_tensor %w : !w to tensor<64x32xbf16>
    %2 = attn.matmul %0, %1 {tile = array<i64: 32, 64>} : tensor<?x64xbf16>, tensor<64x32xbf16> -> tensor<?x32xbf16>
    bufferization.materialize_in_destination %2 in writable %y : (tensor<?x32xbf16>, !y) -> ()
    return
  }
}
