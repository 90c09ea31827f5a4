// RUN: attn-opt %s -verify-diagnostics --pass-pipeline='builtin.module(func.func(attn-select-tiles{target=sm_100}))'

// expected-error @below {{unknown target 'sm_100'; expected host or sm_90a}}
func.func @f() {
  return
}

