// REQUIRES: cuda-toolkit
// One package for the host and sm_90a: both targets share one program,
// shaped for the GPU (the decode function splits its keys into 16 ranges
// there, so it does on the host too; the two products of `project` may run
// side by side there, so the host runs them as a pair too, in order), with
// kernels for each; the runtime runs the kernels of the device it opens.
//
// RUN: attnc %s --target=host,sm_90a -o %t.attnpkg --explain 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: attn-run %t.attnpkg --info | FileCheck %s --check-prefix=INFO
// RUN: attn-run %t.attnpkg --fn decode --shape B=2 --shape Nk=700 --check | FileCheck %s --check-prefix=CHECKED
// RUN: attn-run %t.attnpkg --fn train_bwd --shape B=1 --shape Nq=150 --shape Nk=150 --check | FileCheck %s --check-prefix=CHECKED
// RUN: attn-run %t.attnpkg --fn project --shape d0_0=37 --check | FileCheck %s --check-prefix=CHECKED
// RUN: not attnc %s --target=host,host -o %t.twice.attnpkg 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not attnc %s --target=host,sm_90a --emit=tiled 2>&1 | FileCheck %s --check-prefix=EMIT

// EXPLAIN: target host:
// EXPLAIN: decode: buffer t0 f32 [16, B, 8, 1, 64] slot 0
// EXPLAIN: decode: kernel decode_attention_split0, entry decode_attention_split0_entry, block 1,
// EXPLAIN: project: kernel project_matmul1, entry project_matmul1_entry, {{.*}}; runs beside project_matmul0
// EXPLAIN: target sm_90a:
// EXPLAIN: decode: buffer t0 f32 [16, B, 8, 1, 64] slot 0
// EXPLAIN: decode: kernel decode_attention_split0, entry decode_attention_split0, block 128,
// EXPLAIN: project: kernel project_matmul1, library routine cublaslt_matmul, {{.*}}; runs beside project_matmul0

// INFO: targets host, sm_90a
// INFO-LABEL: function decode
// INFO-DAG: kernel decode_attention_split0 (host):
// INFO-DAG: kernel decode_attention_split0 (sm_90a):
// INFO-DAG: kernel decode_attention_combine1 (host):
// INFO-DAG: kernel decode_attention_combine1 (sm_90a):
// INFO-LABEL: function train_bwd

// CHECKED: {{.*}}: rel_err {{.*}} ok

// TWICE: --target names host twice
// EMIT: several targets make a package; give one --target for --emit=tiled

!q = tensor<?x8x1x64xbf16>
!kv = tensor<?x2x?x64xbf16>
func.func @decode(%q: !q, %k: !kv, %v: !kv) -> !q {
  %o, %l = attn.attention %q, %k, %v {causal, bottom_right}
      : !q, !kv, !kv -> !q, tensor<?x8x1xf32>
  return %o : !q
}

!t = tensor<?x4x?x64xbf16>
func.func @train(%q: !t, %k: !t, %v: !t) -> (!t, tensor<?x4x?xf32>)
    attributes {attn.backward} {
  %o, %l = attn.attention %q, %k, %v {causal} : !t, !t, !t -> !t, tensor<?x4x?xf32>
  return %o, %l : !t, tensor<?x4x?xf32>
}

func.func @project(%x: tensor<?x64xf32>, %wa: tensor<32x64xf32>,
                   %wb: tensor<16x64xf32>) -> (tensor<?x32xf32>, tensor<?x16xf32>) {
  %a = attn.matmul %x, %wa {transpose_b}
      : tensor<?x64xf32>, tensor<32x64xf32> -> tensor<?x32xf32>
  %b = attn.matmul %x, %wb {transpose_b}
      : tensor<?x64xf32>, tensor<16x64xf32> -> tensor<?x16xf32>
  return %a, %b : tensor<?x32xf32>, tensor<?x16xf32>
}
