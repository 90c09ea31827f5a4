// RUN: attn-opt %s | attn-opt | FileCheck %s
// RUN: attn-opt %s --mlir-print-op-generic | attn-opt | FileCheck %s

// Round trip of every attnrt op through the custom and the generic form: a
// program (attnrt.alloc, attnrt.launch, attnrt.dealloc) over the kernels of
// the nested kernel module @attnc_kernels.

// CHECK-LABEL: module @attnc_kernels {
// CHECK: func.func @attention0(
// CHECK: func.func private @cast0(
module @attnc_kernels {
  func.func @attention0(%q: memref<?x16x?x64xbf16>, %out: memref<?x16x?x64xbf16>,
                        %t0: memref<?x16x?x64xbf16>) {
    return
  }
  // A host kernel after attn-host-block-ranges: the buffer, then the block
  // range the launch does not pass.
  func.func private @cast0(memref<8x128xf32>, index, index)
}

// Buffers with and without a slot, with static and dynamic dims (one
// dynamic size per dynamic dim, in order, here dims of an input; symbols in
// the shape), and a rank-0
// buffer with an empty shape. Launches of a kernel in the nested module by
// a nested symbol reference: without a grid, and with grids of one, two
// and three extents. Every buffer is freed.
// CHECK-LABEL: func.func @program(
// CHECK-SAME: %[[Q:[a-zA-Z0-9_]+]]: memref<?x16x?x64xbf16> {attnrt.name = "q", attnrt.shape = ["B", 16, "Nq", 64]},
// CHECK-SAME: %[[OUT:[a-zA-Z0-9_]+]]: memref<?x16x?x64xbf16> {attnrt.name = "out", attnrt.shape = ["B", 16, "Nq", 64]})
// CHECK-SAME: attributes {attnrt.num_inputs = 1 : i64}
func.func @program(%q: memref<?x16x?x64xbf16> {attnrt.name = "q", attnrt.shape = ["B", 16, "Nq", 64]},
                   %out: memref<?x16x?x64xbf16> {attnrt.name = "out", attnrt.shape = ["B", 16, "Nq", 64]})
    attributes {attnrt.num_inputs = 1 : i64} {
  // CHECK: %[[B:.*]] = memref.dim %[[Q]], %{{.*}} : memref<?x16x?x64xbf16>
  // CHECK-NEXT: %[[N:.*]] = memref.dim %[[Q]], %{{.*}} : memref<?x16x?x64xbf16>
  // CHECK-NEXT: %[[C16:.*]] = arith.constant 16 : index
  // CHECK-NEXT: %[[T0:.*]] = attnrt.alloc(%[[B]], %[[N]]) {name = "t0", shape = ["B", 16, "Nq", 64], slot = 0 : i64} : memref<?x16x?x64xbf16>{{$}}
  // CHECK-NEXT: %[[T1:.*]] = attnrt.alloc() {name = "t1", shape = [8, 128]} : memref<8x128xf32>{{$}}
  // CHECK-NEXT: %[[T2:.*]] = attnrt.alloc() {name = "t2", shape = [], slot = 3 : i64} : memref<f32>{{$}}
  // CHECK-NEXT: attnrt.launch @attnc_kernels::@attention0 (%[[Q]], %[[OUT]], %[[T0]]) : memref<?x16x?x64xbf16>, memref<?x16x?x64xbf16>, memref<?x16x?x64xbf16>{{$}}
  // CHECK-NEXT: attnrt.launch @attnc_kernels::@attention0 grid(%[[N]]) (%[[Q]], %[[OUT]], %[[T0]]) : memref<?x16x?x64xbf16>, memref<?x16x?x64xbf16>, memref<?x16x?x64xbf16>{{$}}
  // CHECK-NEXT: attnrt.launch @attnc_kernels::@attention0 grid(%[[N]], %[[C16]]) (%[[Q]], %[[OUT]], %[[T0]]) : memref<?x16x?x64xbf16>, memref<?x16x?x64xbf16>, memref<?x16x?x64xbf16>{{$}}
  // CHECK-NEXT: attnrt.launch @attnc_kernels::@attention0 grid(%[[N]], %[[C16]], %[[B]]) (%[[Q]], %[[OUT]], %[[T0]]) : memref<?x16x?x64xbf16>, memref<?x16x?x64xbf16>, memref<?x16x?x64xbf16>{{$}}
  // CHECK-NEXT: attnrt.launch @attnc_kernels::@cast0 grid(%[[C16]]) (%[[T1]]) : memref<8x128xf32>{{$}}
  // CHECK-NEXT: attnrt.launch @attnc_kernels::@matmul0 (%[[T1]], %[[T1]], %[[T1]]) {library = "cublaslt_matmul"} : memref<8x128xf32>, memref<8x128xf32>, memref<8x128xf32>{{$}}
  // CHECK-NEXT: attnrt.launch @attnc_kernels::@cast0 grid(%[[C16]]) (%[[T2]]) {concurrent} : memref<f32>{{$}}
  // CHECK-NEXT: attnrt.dealloc %[[T0]] : memref<?x16x?x64xbf16>{{$}}
  // CHECK-NEXT: attnrt.dealloc %[[T1]] : memref<8x128xf32>{{$}}
  // CHECK-NEXT: attnrt.dealloc %[[T2]] : memref<f32>{{$}}
  // CHECK-NEXT: return
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %b = memref.dim %q, %c0 : memref<?x16x?x64xbf16>
  %n = memref.dim %q, %c2 : memref<?x16x?x64xbf16>
  %c16 = arith.constant 16 : index
  %t0 = attnrt.alloc(%b, %n) {name = "t0", shape = ["B", 16, "Nq", 64], slot = 0 : i64}
      : memref<?x16x?x64xbf16>
  %t1 = attnrt.alloc() {name = "t1", shape = [8, 128]} : memref<8x128xf32>
  %t2 = attnrt.alloc() {name = "t2", shape = [], slot = 3} : memref<f32>
  attnrt.launch @attnc_kernels::@attention0 (%q, %out, %t0)
      : memref<?x16x?x64xbf16>, memref<?x16x?x64xbf16>, memref<?x16x?x64xbf16>
  attnrt.launch @attnc_kernels::@attention0 grid(%n) (%q, %out, %t0)
      : memref<?x16x?x64xbf16>, memref<?x16x?x64xbf16>, memref<?x16x?x64xbf16>
  attnrt.launch @attnc_kernels::@attention0 grid(%n, %c16) (%q, %out, %t0)
      : memref<?x16x?x64xbf16>, memref<?x16x?x64xbf16>, memref<?x16x?x64xbf16>
  attnrt.launch @attnc_kernels::@attention0 grid(%n, %c16, %b) (%q, %out, %t0)
      : memref<?x16x?x64xbf16>, memref<?x16x?x64xbf16>, memref<?x16x?x64xbf16>
  attnrt.launch @attnc_kernels::@cast0 grid(%c16) (%t1) : memref<8x128xf32>
  // A library step names no kernel function.
  attnrt.launch @attnc_kernels::@matmul0 (%t1, %t1, %t1) {library = "cublaslt_matmul"}
      : memref<8x128xf32>, memref<8x128xf32>, memref<8x128xf32>
  // ... and one beside it (the verifier checks only that it has one).
  attnrt.launch @attnc_kernels::@cast0 grid(%c16) (%t2) {concurrent} : memref<f32>
  attnrt.dealloc %t0 : memref<?x16x?x64xbf16>
  attnrt.dealloc %t1 : memref<8x128xf32>
  attnrt.dealloc %t2 : memref<f32>
  return
}

// A kernel in the enclosing module is found by a flat symbol reference;
// a kernel may be a gpu.func of a gpu.module.
// CHECK-LABEL: func.func @flat_and_gpu_kernels(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: index, %[[A:[a-zA-Z0-9_]+]]: memref<4xf32>)
func.func @flat_and_gpu_kernels(%x: index, %a: memref<4xf32>) {
  // CHECK-NEXT: attnrt.launch @flat_kernel (%[[A]]) : memref<4xf32>{{$}}
  // CHECK-NEXT: attnrt.launch @gpu_kernels::@k grid(%[[X]], %[[X]], %[[X]]) (%[[A]]) : memref<4xf32>{{$}}
  attnrt.launch @flat_kernel (%a) : memref<4xf32>
  attnrt.launch @gpu_kernels::@k grid(%x, %x, %x) (%a) : memref<4xf32>
  return
}
func.func private @flat_kernel(memref<4xf32>)
gpu.module @gpu_kernels {
  gpu.func @k(%a: memref<4xf32>) kernel {
    gpu.return
  }
}

// A kernel that takes only its block range is launched without buffers.
// CHECK-LABEL: func.func @launch_without_buffers(
func.func @launch_without_buffers() {
  // CHECK-NEXT: attnrt.launch @block_range_only (){{$}}
  // CHECK-NEXT: return
  attnrt.launch @block_range_only ()
  return
}
func.func private @block_range_only(index, index)

// An argument's dynamic dim fixed by another value of its class carries the
// extent in its shape.
// CHECK-LABEL: func.func @fixed_dynamic_dim(
// CHECK-SAME: attnrt.shape = [2, 4]
func.func @fixed_dynamic_dim(%x: memref<?x4xf32> {attnrt.name = "x", attnrt.shape = [2, 4]}) attributes {attnrt.num_inputs = 1 : i64} {
  return
}

// Views of an argument's and of a buffer's rows; a view's rows may end
// anywhere in a symbolic first dim.
// CHECK-LABEL: func.func @views(
func.func @views(%e: memref<?x?xbf16> {attnrt.name = "e", attnrt.shape = ["V", "C"]}) attributes {attnrt.num_inputs = 1 : i64} {
  // CHECK: attnrt.view %{{.*}}[8] {name = "v0", shape = [4, "C"]} : memref<?x?xbf16> to memref<4x?xbf16, strided<[?, 1], offset: ?>>
  %v0 = attnrt.view %e[8] {name = "v0", shape = [4, "C"]} : memref<?x?xbf16> to memref<4x?xbf16, strided<[?, 1], offset: ?>>
  %t = attnrt.alloc() {name = "t0", shape = [6, 3]} : memref<6x3xf32>
  // CHECK: attnrt.view %{{.*}}[2] {name = "v1", shape = [4, 3]} : memref<6x3xf32> to memref<4x3xf32, strided<[3, 1], offset: 6>>
  %v1 = attnrt.view %t[2] {name = "v1", shape = [4, 3]} : memref<6x3xf32> to memref<4x3xf32, strided<[3, 1], offset: 6>>
  attnrt.dealloc %t : memref<6x3xf32>
  return
}

// A heads view: all of a [B, N, H * D] value as [B, H, N, D].
// CHECK-LABEL: func.func @heads_view(
func.func @heads_view(%q: memref<?x?x768xbf16> {attnrt.name = "q", attnrt.shape = ["B", "N", 768]}) attributes {attnrt.num_inputs = 1 : i64} {
  // CHECK: attnrt.view %{{.*}}[0] {heads = 12 : i64, name = "qh", shape = ["B", 12, "N", 64]} : memref<?x?x768xbf16> to memref<?x12x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>
  %qh = attnrt.view %q[0] {heads = 12 : i64, name = "qh", shape = ["B", 12, "N", 64]} : memref<?x?x768xbf16> to memref<?x12x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>
  return
}

// A view of a rank-1 value reshapes elements [begin, begin + count).
// CHECK-LABEL: func.func @reshaped_view(
func.func @reshaped_view(%p: memref<20xf32> {attnrt.name = "params", attnrt.shape = [20]}) attributes {attnrt.num_inputs = 1 : i64} {
  // CHECK: attnrt.view %{{.*}}[8] {name = "w", shape = [3, 4]} : memref<20xf32> to memref<3x4xf32, strided<[4, 1], offset: ?>>
  %w = attnrt.view %p[8] {name = "w", shape = [3, 4]} : memref<20xf32> to memref<3x4xf32, strided<[4, 1], offset: ?>>
  return
}
