// RUN: attn-opt %s -verify-diagnostics --pass-pipeline='builtin.module(func.func(attn-select-tiles{target=sm_90a tensor-cores=wmma}))'

// expected-error @below {{unknown tensor-core kernel 'wmma'; expected auto or mma-sync}}
func.func @f() {
  return
}
