// RUN: attn-opt %s -split-input-file -verify-diagnostics --attn-host-entry-points | FileCheck %s

// Every kernel gets `<kernel>_entry(void **args, i64 begin, i64 end)`, which
// loads one descriptor pointer per argument and calls the C wrapper. The
// wrapper itself (it carries the copied attribute) gets no entry point.

// CHECK-LABEL: llvm.func @k_entry(
// CHECK-SAME:    %[[ARGS:.*]]: !llvm.ptr, %[[BEGIN:.*]]: i64, %[[END:.*]]: i64)
// CHECK:         %[[P0:.*]] = llvm.getelementptr %[[ARGS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK:         %[[D0:.*]] = llvm.load %[[P0]] : !llvm.ptr -> !llvm.ptr
// CHECK:         %[[P1:.*]] = llvm.getelementptr %[[ARGS]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK:         %[[D1:.*]] = llvm.load %[[P1]] : !llvm.ptr -> !llvm.ptr
// CHECK:         llvm.call @_mlir_ciface_k(%[[D0]], %[[D1]], %[[BEGIN]], %[[END]])
// CHECK:         llvm.return
// CHECK-NOT:   llvm.func @_mlir_ciface_k_entry
llvm.func @k(%a: !llvm.ptr, %b: !llvm.ptr, %begin: i64, %end: i64) attributes {attnrt.kernel} {
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
