// RUN: attn-opt %s -split-input-file -verify-diagnostics --attn-host-entry-points | FileCheck %s

// Every kernel gets `<kernel>_entry(void **args, i64 begin, i64 end)`, which
// loads one descriptor pointer per argument and calls the C wrapper, and the
// constant `<kernel>_entry_arg_ranks` = {argument count, ranks}, read from
// the kernel's expanded memref parameters (here a rank-2 and a rank-1
// memref). The wrapper itself (it carries the copied attribute) gets no
// entry point. The kernel and its wrapper become internal: only the entry
// and its ranks are symbols of the shared object.

// CHECK:       llvm.func internal @k(
// CHECK:       llvm.func internal @_mlir_ciface_k(
// CHECK-LABEL: llvm.func @k_entry(
// CHECK-SAME:    %[[ARGS:.*]]: !llvm.ptr, %[[BEGIN:.*]]: i64, %[[END:.*]]: i64)
// CHECK:         %[[P0:.*]] = llvm.getelementptr %[[ARGS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK:         %[[D0:.*]] = llvm.load %[[P0]] : !llvm.ptr -> !llvm.ptr
// CHECK:         %[[P1:.*]] = llvm.getelementptr %[[ARGS]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK:         %[[D1:.*]] = llvm.load %[[P1]] : !llvm.ptr -> !llvm.ptr
// CHECK:         llvm.call @_mlir_ciface_k(%[[D0]], %[[D1]], %[[BEGIN]], %[[END]])
// CHECK:         llvm.return
// CHECK:       llvm.mlir.global external constant @k_entry_arg_ranks(dense<[2, 2, 1]> : tensor<3xi64>) {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.array<3 x i64>
// CHECK-NOT:   llvm.func @_mlir_ciface_k_entry
llvm.func @k(%a0: !llvm.ptr, %a1: !llvm.ptr, %a2: i64, %a3: i64, %a4: i64, %a5: i64, %a6: i64,
             %b0: !llvm.ptr, %b1: !llvm.ptr, %b2: i64, %b3: i64, %b4: i64,
             %begin: i64, %end: i64) attributes {attnrt.kernel} {
  llvm.return
}
llvm.func @_mlir_ciface_k(%a: !llvm.ptr, %b: !llvm.ptr, %begin: i64, %end: i64) attributes {attnrt.kernel} {
  llvm.return
}

// -----

// expected-error @below {{kernel has no C interface wrapper '_mlir_ciface_lonely'}}
llvm.func @lonely(%begin: i64, %end: i64) attributes {attnrt.kernel} {
  llvm.return
}

// -----

llvm.func @_mlir_ciface_odd(%a: i32, %begin: i64, %end: i64) {
  llvm.return
}
// expected-error @below {{kernel C interface must take descriptor pointers followed by the block range (i64, i64)}}
llvm.func @odd(%a: i32, %begin: i64, %end: i64) attributes {attnrt.kernel} {
  llvm.return
}

// -----

llvm.func @_mlir_ciface_flat(%a: !llvm.ptr, %begin: i64, %end: i64) {
  llvm.return
}
// expected-error @below {{kernel parameters are not 1 expanded memrefs and the block range}}
llvm.func @flat(%a: !llvm.ptr, %begin: i64, %end: i64) attributes {attnrt.kernel} {
  llvm.return
}
