// RUN: attn-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(gpu.module(attn-tensor-map-params))'

// A kernel with tensor maps has a parameter for each and one for their
// valid bits ...
gpu.module @kernels {
  // expected-error @below {{expected 2 tensor map parameters and their valid bits, the kernel has 2 parameters}}
  llvm.func @short(%m0: !llvm.ptr, %bits: i64)
      attributes {nvvm.kernel, attngpu.tensor_maps = [{arg = 0 : i64, box = array<i64: 64>, swizzle_bytes = 0 : i64},
                                                      {arg = 0 : i64, box = array<i64: 64>, swizzle_bytes = 0 : i64}]} {
    llvm.return
  }
}

// -----

// ... and each tensor map parameter is a pointer (to the parameter).
gpu.module @kernels {
  // expected-error @below {{expected tensor map parameter 1 to be a pointer}}
  llvm.func @not_pointer(%data: !llvm.ptr, %m0: i64, %bits: i64)
      attributes {nvvm.kernel, attngpu.tensor_maps = [{arg = 0 : i64, box = array<i64: 64>, swizzle_bytes = 0 : i64}]} {
    llvm.return
  }
}
