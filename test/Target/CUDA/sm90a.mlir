// REQUIRES: cuda-toolkit
// RUN: attnc %s --target=sm_90a --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: attnc %s --target=sm_90a -o %t.attnpkg --explain 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: attn-run %t.attnpkg --list | FileCheck %s --check-prefix=LIST

// PTX 8.0 for sm_90a with one kernel per function taking MLIR's expanded
// memref arguments, shared memory and barriers; exp2 comes from libdevice.

// PTX:      .version 8.0
// PTX:      .target sm_90a
// PTX:      .visible .entry causal(
// PTX:      bar.sync
// PTX:      ex2.approx

// The package records the launch and ptxas's resource report.

// EXPLAIN-DAG: causal (sm_90a): registers={{[0-9]+}} spill_load_bytes=0 spill_store_bytes=0 stack_bytes={{[0-9]+}}
// EXPLAIN-DAG: causal: entry causal, block 64, dynamic shared memory 83200 bytes, tiles block_m=64 block_n=64

// LIST: causal

func.func @causal(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x4x?x64xbf16>, %v: tensor<?x4x?x64xbf16>)
    -> (tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {causal}
      : tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>
      -> tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>
  return %o, %l : tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>
}
