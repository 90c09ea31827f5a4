// RUN: attn-opt %s --attnc-host | FileCheck %s

// The whole host pipeline on a function of an attention and a cast: the
// function stays a program (buffers, planned intermediate, launches with
// the grids the host lowering moved there, dealloc) while its kernels become
// LLVM functions, each with the C interface and the packed entry point
// `<kernel>_entry(args, block_begin, block_end)` the runtime calls.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[Q:[a-z0-9]+]]: memref<?x8x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>> {attnrt.name = "q", attnrt.shape = ["B", 8, "Nq", 64]},
// CHECK-SAME:    %[[K:[a-z0-9]+]]: memref<?x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>> {attnrt.name = "k", attnrt.shape = ["B", 2, "Nk", 64]},
// CHECK-SAME:    %[[V:[a-z0-9]+]]: memref<?x2x?x32xbf16, strided<[?, ?, ?, ?], offset: ?>> {attnrt.name = "v", attnrt.shape = ["B", 2, "Nk", 32]},
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<?x8x?x32xf32, strided<[?, ?, ?, ?], offset: ?>> {attnrt.name = "out", attnrt.shape = ["B", 8, "Nq", 32]},
// CHECK-SAME:    %[[LSE:[a-z0-9]+]]: memref<?x8x?xf32, strided<[?, ?, ?], offset: ?>> {attnrt.name = "lse", attnrt.shape = ["B", 8, "Nq"]})
// CHECK-SAME:    attributes {attnrt.num_inputs = 3 : i64} {
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG:     %[[B:.*]] = memref.dim %[[Q]], %{{.*}}
// CHECK-DAG:     %[[NQ:.*]] = memref.dim %[[Q]], %{{.*}}
// CHECK:         %[[T0:.*]] = attnrt.alloc(%[[B]], %[[NQ]]) {name = "t0", shape = ["B", 8, "Nq", 32], slot = 0 : i64} : memref<?x8x?x32xbf16>
// CHECK:         %[[QBLOCKS:.*]] = arith.ceildivui %[[NQ]], %[[C64]] : index
// CHECK-NEXT:    attnrt.launch @attnc_kernels::@f_attention0 grid(%[[QBLOCKS]], %[[C8]], %[[B]]) (%[[Q]], %[[K]], %[[V]], %[[T0]], %[[LSE]])
// CHECK:         %[[CAST_BLOCKS:.*]] = arith.ceildivui %{{.*}}, %{{.*}} : index
// CHECK-NEXT:    attnrt.launch @attnc_kernels::@f_cast1 grid(%[[CAST_BLOCKS]]) (%[[T0]], %[[OUT]])
// CHECK-NEXT:    attnrt.dealloc %[[T0]]
// CHECK-NEXT:    return

// CHECK-LABEL: module @attnc_kernels {
// CHECK-NOT:     func.func
// CHECK-NOT:     scf.
// CHECK-NOT:     memref.
// CHECK-NOT:     attn.
// CHECK-DAG:     llvm.func internal @f_attention0(
// CHECK-DAG:     llvm.func internal @_mlir_ciface_f_attention0({{.*}}) attributes {attnrt.kernel, llvm.emit_c_interface}
// CHECK-DAG:     llvm.func internal @f_cast1(
// CHECK-DAG:     llvm.func internal @_mlir_ciface_f_cast1({{.*}}) attributes {attnrt.kernel, llvm.emit_c_interface}
// CHECK-DAG:     llvm.func @f_attention0_entry(%{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64)
// CHECK-DAG:     llvm.func @f_cast1_entry(%{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64)
// CHECK-NOT:     func.func
// CHECK-NOT:     scf.
// CHECK-NOT:     memref.
// CHECK-NOT:     attn.
func.func @f(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x32xbf16>)
    -> (tensor<?x8x?x32xf32>, tensor<?x8x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {causal}
      : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x32xbf16>
      -> tensor<?x8x?x32xbf16>, tensor<?x8x?xf32>
  %c = attn.cast %o {scale = 2.0 : f32} : tensor<?x8x?x32xbf16> to tensor<?x8x?x32xf32>
  return %c, %l : tensor<?x8x?x32xf32>, tensor<?x8x?xf32>
}
