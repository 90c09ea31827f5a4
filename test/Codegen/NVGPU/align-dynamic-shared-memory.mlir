// RUN: attn-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(attn-align-dynamic-shared-memory))' | FileCheck %s
// RUN: attn-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(attn-align-dynamic-shared-memory{alignment=128}))' | FileCheck %s --check-prefix=ALIGN128
// RUN: attn-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(attn-align-dynamic-shared-memory{alignment=96}))' -verify-diagnostics
// RUN: not attn-opt %s --pass-pipeline='builtin.module(gpu.module(attn-align-dynamic-shared-memory{alignment=0}))' 2>&1 | FileCheck %s --check-prefix=ZERO

// The dynamic shared memory global becomes external with the alignment;
// other shared or global variables keep theirs.

// CHECK-LABEL: gpu.module @kernels
// CHECK:         llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK:         llvm.mlir.global internal @static_tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>
// CHECK:         llvm.mlir.global internal @__dynamic_shmem__global() {addr_space = 1 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// ALIGN128-LABEL: gpu.module @kernels
// ALIGN128:         llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 128 : i64}
// ZERO: error: alignment must be a power of two, got 0
// expected-error @below {{alignment must be a power of two, got 96}}
gpu.module @kernels {
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global internal @static_tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>
  llvm.mlir.global internal @__dynamic_shmem__global() {addr_space = 1 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
}
