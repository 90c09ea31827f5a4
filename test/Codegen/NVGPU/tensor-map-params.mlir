// RUN: attn-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(attn-tensor-map-params))' | FileCheck %s

// The tensor-map parameters of a lowered kernel (the ones before its last,
// one per attngpu.tensor_maps entry) are passed by value, 128 bytes
// aligned to 64, as grid constants; its other parameters and kernels
// without tensor maps keep theirs.

// CHECK-LABEL: gpu.module @kernels
// CHECK:         llvm.func @maps({{%[a-z0-9]+}}: !llvm.ptr, {{%[a-z0-9]+}}: i64,
// CHECK-SAME:      {{%[a-z0-9]+}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant},
// CHECK-SAME:      {{%[a-z0-9]+}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant},
// CHECK-SAME:      {{%[a-z0-9]+}}: i64)
// CHECK:         llvm.func @plain({{%[a-z0-9]+}}: !llvm.ptr)
// CHECK-NOT:       grid_constant
gpu.module @kernels {
  llvm.func @maps(%data: !llvm.ptr, %size: i64, %m0: !llvm.ptr, %m1: !llvm.ptr, %bits: i64)
      attributes {nvvm.kernel, attngpu.tensor_maps = [{arg = 0 : i64, box = array<i64: 64>, swizzle_bytes = 0 : i64},
                                                      {arg = 0 : i64, box = array<i64: 32>, swizzle_bytes = 0 : i64}]} {
    llvm.return
  }
  llvm.func @plain(%data: !llvm.ptr) attributes {nvvm.kernel} {
    llvm.return
  }
}
