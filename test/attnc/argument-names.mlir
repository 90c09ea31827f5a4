// A package names a function's inputs as its source does, and their
// gradients "d" + that name; generated names (%arg1) and unnamed values fall
// back to the role in the first op that reads them, then to arg<i>.
// --emit=mlir keeps the names as attn.name argument attributes, which
// survive a round trip.
//
// RUN: attnc %s -o %t.attnpkg
// RUN: attn-run %t.attnpkg --info | FileCheck %s
// RUN: attnc %s --emit=mlir | FileCheck %s --check-prefix=MLIR
// RUN: attnc %s --emit=mlir | attnc - -o %t.again.attnpkg
// RUN: attn-run %t.again.attnpkg --info | FileCheck %s

// CHECK-LABEL: function project
// CHECK-NEXT:  input x: f32 [d0_0, 8]
// CHECK-NEXT:  input w_in: f32 [4, 8]
// CHECK-LABEL: function project_bwd
// CHECK:       output dx: f32 [d0_0, 8]
// CHECK-NEXT:  output dw_in: f32 [4, 8]
// CHECK-LABEL: function generated
// CHECK-NEXT:  input x: f32 [d0_0, 8]
// CHECK-NEXT:  input w: f32 [4, 8]

// MLIR-LABEL: func.func @project(
// MLIR-SAME:    {attn.name = "x"}
// MLIR-SAME:    {attn.name = "w_in"}
// MLIR-LABEL: func.func @generated(
// MLIR-NOT:     attn.name
// MLIR:         return
func.func @project(%x: tensor<?x8xf32>, %w_in: tensor<4x8xf32>)
    -> tensor<?x4xf32> attributes {attn.backward} {
  %y = attn.matmul %x, %w_in {transpose_b}
      : tensor<?x8xf32>, tensor<4x8xf32> -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

func.func @generated(%arg0: tensor<?x8xf32>, %arg1: tensor<4x8xf32>)
    -> tensor<?x4xf32> {
  %y = attn.matmul %arg0, %arg1 {transpose_b}
      : tensor<?x8xf32>, tensor<4x8xf32> -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
