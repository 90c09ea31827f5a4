// RUN: attn-opt %s --pass-pipeline='builtin.module(attn-form-programs, attn-merge-identical-kernels)' | FileCheck %s

// Two casts of one configuration are one kernel, launched twice; the
// second launch keeps its own step name. A cast of another scale, or of
// another shape, is a kernel of its own.
// CHECK-LABEL: func.func @layers(
// CHECK:         attnrt.launch @attnc_kernels::@layers_cast0 ({{.*}}) : memref<4x8xf32
// CHECK:         attnrt.launch @attnc_kernels::@layers_cast0 ({{.*}}) {step = "layers_cast1"} : memref<4x8xf32
// CHECK:         attnrt.launch @attnc_kernels::@layers_cast2 ({{.*}}) : memref<4x8xf32
// CHECK:         attnrt.launch @attnc_kernels::@layers_cast3 ({{.*}}) : memref<2x8xf32
// CHECK-LABEL: module @attnc_kernels
// CHECK:         func.func @layers_cast0(
// CHECK-NOT:     func.func @layers_cast1(
// CHECK:         func.func @layers_cast2(
// CHECK:         func.func @layers_cast3(
func.func @layers(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<2x8xf32>) {
  %a = attn.cast %x {scale = 2.0 : f32} : tensor<4x8xf32> to tensor<4x8xf32>
  %b = attn.cast %a {scale = 2.0 : f32} : tensor<4x8xf32> to tensor<4x8xf32>
  %c = attn.cast %b {scale = 3.0 : f32} : tensor<4x8xf32> to tensor<4x8xf32>
  %s = tensor.extract_slice %c[0, 0] [2, 8] [1, 1] : tensor<4x8xf32> to tensor<2x8xf32>
  %d = attn.cast %s {scale = 3.0 : f32} : tensor<2x8xf32> to tensor<2x8xf32>
  return %c, %d : tensor<4x8xf32>, tensor<2x8xf32>
}
