// RUN: attn-opt %s -split-input-file -attn-fuse-elementwise | FileCheck %s

// A chain of tensor ops is one attn.elementwise; splat constants, dense or
// tensor.splat, move into the body.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x8xf32>, %[[Y:[^:]+]]: tensor<?x8xf32>)
// CHECK: %[[R:.*]] = attn.elementwise %[[Y]], %[[X]] : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32> {
// CHECK-NEXT: ^bb0(%[[B:.*]]: f32, %[[A:.*]]: f32):
// CHECK-NEXT: %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[A]], %[[TWO]] : f32
// CHECK-NEXT: %[[T:.*]] = math.tanh %[[M]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[T]], %[[B]] : f32
// CHECK-NEXT: attn.yield %[[S]] : f32
// CHECK: return %[[R]]
func.func @chain(%x: tensor<?x8xf32>, %y: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %c2 = arith.constant 2.0 : f32
  %two = tensor.splat %c2[%n] : tensor<?x8xf32>
  %m = arith.mulf %x, %two : tensor<?x8xf32>
  %t = math.tanh %m : tensor<?x8xf32>
  %s = arith.addf %t, %y : tensor<?x8xf32>
  return %s : tensor<?x8xf32>
}

// -----

// A 16-bit intermediate rounds to its type inside the fused body, as
// storing it would; a conversion is the identity in the body.
// CHECK-LABEL: func.func @rounded
// CHECK: attn.elementwise %{{.*}} : tensor<4xbf16> -> tensor<4xf32> {
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32):
// CHECK-NEXT: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[A]], %[[HALF]] : f32
// CHECK-NEXT: %[[N:.*]] = arith.truncf %[[M]] : f32 to bf16
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[N]] : bf16 to f32
// CHECK-NEXT: attn.yield %[[W]] : f32
func.func @rounded(%x: tensor<4xbf16>) -> tensor<4xf32> {
  %half = arith.constant dense<0.5> : tensor<4xbf16>
  %m = arith.mulf %x, %half : tensor<4xbf16>
  %w = arith.extf %m : tensor<4xbf16> to tensor<4xf32>
  return %w : tensor<4xf32>
}

// -----

// A value two ops read stays a kernel of its own; an input read twice is
// one operand.
// CHECK-LABEL: func.func @shared
// CHECK-SAME: (%[[X:[^:]+]]: tensor<4xf32>)
// CHECK: %[[E:.*]] = attn.elementwise %[[X]] : tensor<4xf32> -> tensor<4xf32>
// CHECK: math.exp
// CHECK: %[[A:.*]] = attn.elementwise %[[E]] : tensor<4xf32> -> tensor<4xf32>
// CHECK: %[[B:.*]] = attn.elementwise %[[E]], %[[X]] : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32> {
// CHECK-NEXT: ^bb0(%[[P:.*]]: f32, %[[Q:.*]]: f32):
// CHECK-NEXT: arith.mulf %[[Q]], %[[Q]] : f32
// CHECK: return %[[A]], %[[B]]
func.func @shared(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = math.exp %x : tensor<4xf32>
  %a = math.tanh %e : tensor<4xf32>
  %sq = arith.mulf %x, %x : tensor<4xf32>
  %b = arith.addf %e, %sq : tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// -----

// Integer tensors and comparisons are no body's business: they stay.
// CHECK-LABEL: func.func @integers
// CHECK: arith.addi %{{.*}} : tensor<4xi32>
// CHECK-NOT: attn.elementwise
func.func @integers(%x: tensor<4xi32>) -> tensor<4xi32> {
  %y = arith.addi %x, %x : tensor<4xi32>
  return %y : tensor<4xi32>
}

// -----

// A producer fuses into a reader with several results (the gradients of
// an elementwise op are one such op).
// CHECK-LABEL: func.func @into_two_results
// CHECK-SAME: (%[[X:[^:]+]]: tensor<4xf32>, %[[D:[^:]+]]: tensor<4xf32>)
// CHECK: %[[R:.*]]:2 = attn.elementwise %[[D]], %[[X]] : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>, tensor<4xf32> {
// CHECK-NEXT: ^bb0(%[[B:.*]]: f32, %[[A:.*]]: f32):
// CHECK-NEXT: %[[E:.*]] = math.exp %[[A]] : f32
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[E]], %[[B]] : f32
// CHECK-NEXT: %[[Q:.*]] = arith.addf %[[E]], %[[B]] : f32
// CHECK-NEXT: attn.yield %[[P]], %[[Q]] : f32, f32
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @into_two_results(%x: tensor<4xf32>, %d: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = math.exp %x : tensor<4xf32>
  %p, %q = attn.elementwise %e, %d : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>, tensor<4xf32> {
  ^bb0(%a: f32, %b: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %a, %b : f32
    attn.yield %m, %s : f32, f32
  }
  return %p, %q : tensor<4xf32>, tensor<4xf32>
}

// -----

// Splat constants only: a constant, not a kernel; program formation says
// so (form-programs-invalid.mlir).
// CHECK-LABEL: func.func @constants_only
// CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<?xf32>
// CHECK-NOT: attn.elementwise
func.func @constants_only(%n: index) -> tensor<?xf32> {
  %c = arith.constant 1.0 : f32
  %a = tensor.splat %c[%n] : tensor<?xf32>
  %s = arith.addf %a, %a : tensor<?xf32>
  return %s : tensor<?xf32>
}
