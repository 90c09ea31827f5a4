// REQUIRES: cuda-toolkit
// RUN: attnc %s --target=sm_90a --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: attnc %s --target=sm_90a -o %t.attnpkg --explain 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: attn-run %t.attnpkg --list | FileCheck %s --check-prefix=LIST

// PTX 8.0 for sm_90a, one kernel per function taking MLIR's expanded memref
// arguments. bf16 runs on tensor cores (cp.async into shared memory, ldmatrix,
// mma.sync m16n8k16 with f32 accumulators, quad shuffles for row
// statistics); f32 on the scalar kernel.
// exp2 comes from libdevice.

// PTX:      .version 8.0
// PTX:      .target sm_90a
// PTX-LABEL: .visible .entry causal_bf16(
// PTX-DAG:  ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-DAG:  mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-DAG:  shfl.sync.bfly.b32
// PTX-DAG:  ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX-DAG:  cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, {{.*}};
// PTX-DAG:  ex2.approx
// PTX-LABEL: .visible .entry causal_f32(
// PTX-NOT:  mma.sync
// PTX:      bar.sync
// PTX:      ex2.approx

// The package records the launch and ptxas's resource report.

// EXPLAIN-DAG: causal_bf16 (sm_90a): registers={{[0-9]+}} spill_load_bytes=0 spill_store_bytes=0 stack_bytes={{[0-9]+}}
// EXPLAIN-DAG: causal_bf16: entry causal_bf16, block 256, dynamic shared memory 55296 bytes, tiles block_m=128 block_n=64
// EXPLAIN-DAG: causal_f32: entry causal_f32, block 64, dynamic shared memory 83200 bytes, tiles block_m=64 block_n=64

// LIST: causal_bf16
// LIST: causal_f32

func.func @causal_bf16(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x4x?x64xbf16>, %v: tensor<?x4x?x64xbf16>)
    -> (tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {causal}
      : tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>
      -> tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>
  return %o, %l : tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>
}

func.func @causal_f32(%q: tensor<?x4x?x64xf32>, %k: tensor<?x4x?x64xf32>, %v: tensor<?x4x?x64xf32>)
    -> (tensor<?x4x?x64xf32>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {causal}
      : tensor<?x4x?x64xf32>, tensor<?x4x?x64xf32>, tensor<?x4x?x64xf32>
      -> tensor<?x4x?x64xf32>, tensor<?x4x?xf32>
  return %o, %l : tensor<?x4x?x64xf32>, tensor<?x4x?xf32>
}
