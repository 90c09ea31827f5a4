// Head layouts and head dims on the host backend against the fp64
// reference: grouped-query 4:1, multi-query, head dims 64, 96, 128 and 256,
// a value head dim different from the query's, and a function returning only
// the output.
//
// RUN: attnc %s -o %t.attnpkg
// RUN: attn-run %t.attnpkg --fn gqa --shape Nq=130 --shape Nk=130 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn mqa --shape Nq=130 --shape Nk=200 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn d64 --shape B=2 --shape Nq=100 --shape Nk=150 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn d96 --shape B=2 --shape Nq=100 --shape Nk=100 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn d128 --shape B=1 --shape Nq=100 --shape Nk=100 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn d256 --shape B=1 --shape Nq=100 --shape Nk=100 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn dv32 --shape Nq=100 --shape Nk=77 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn out_only --shape Nq=65 --shape Nk=65 --check | FileCheck %s --check-prefix=OUT

// CHECK: seed:
// CHECK: out: rel_err {{.*}} ok
// CHECK-NEXT: lse: rel_err {{.*}} ok

// OUT: seed:
// OUT: out: rel_err {{.*}} ok
// OUT-NOT: lse

func.func @gqa(%q: tensor<1x8x?x64xf32>, %k: tensor<1x2x?x64xf32>, %v: tensor<1x2x?x64xf32>)
    -> (tensor<1x8x?x64xf32>, tensor<1x8x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {causal}
      : tensor<1x8x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32>
      -> tensor<1x8x?x64xf32>, tensor<1x8x?xf32>
  return %o, %l : tensor<1x8x?x64xf32>, tensor<1x8x?xf32>
}

func.func @mqa(%q: tensor<1x4x?x64xf32>, %k: tensor<1x1x?x64xf32>, %v: tensor<1x1x?x64xf32>)
    -> (tensor<1x4x?x64xf32>, tensor<1x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
      : tensor<1x4x?x64xf32>, tensor<1x1x?x64xf32>, tensor<1x1x?x64xf32>
      -> tensor<1x4x?x64xf32>, tensor<1x4x?xf32>
  return %o, %l : tensor<1x4x?x64xf32>, tensor<1x4x?xf32>
}

func.func @d64(%q: tensor<?x2x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>)
    -> (tensor<?x2x?x64xf32>, tensor<?x2x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
      : tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32>
      -> tensor<?x2x?x64xf32>, tensor<?x2x?xf32>
  return %o, %l : tensor<?x2x?x64xf32>, tensor<?x2x?xf32>
}

func.func @d96(%q: tensor<?x2x?x96xf32>, %k: tensor<?x2x?x96xf32>, %v: tensor<?x2x?x96xf32>)
    -> (tensor<?x2x?x96xf32>, tensor<?x2x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {causal}
      : tensor<?x2x?x96xf32>, tensor<?x2x?x96xf32>, tensor<?x2x?x96xf32>
      -> tensor<?x2x?x96xf32>, tensor<?x2x?xf32>
  return %o, %l : tensor<?x2x?x96xf32>, tensor<?x2x?xf32>
}

func.func @d128(%q: tensor<?x2x?x128xf32>, %k: tensor<?x2x?x128xf32>, %v: tensor<?x2x?x128xf32>)
    -> (tensor<?x2x?x128xf32>, tensor<?x2x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
      : tensor<?x2x?x128xf32>, tensor<?x2x?x128xf32>, tensor<?x2x?x128xf32>
      -> tensor<?x2x?x128xf32>, tensor<?x2x?xf32>
  return %o, %l : tensor<?x2x?x128xf32>, tensor<?x2x?xf32>
}

func.func @d256(%q: tensor<?x2x?x256xf32>, %k: tensor<?x2x?x256xf32>, %v: tensor<?x2x?x256xf32>)
    -> (tensor<?x2x?x256xf32>, tensor<?x2x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {causal}
      : tensor<?x2x?x256xf32>, tensor<?x2x?x256xf32>, tensor<?x2x?x256xf32>
      -> tensor<?x2x?x256xf32>, tensor<?x2x?xf32>
  return %o, %l : tensor<?x2x?x256xf32>, tensor<?x2x?xf32>
}

func.func @dv32(%q: tensor<1x2x?x64xf32>, %k: tensor<1x2x?x64xf32>, %v: tensor<1x2x?x32xf32>)
    -> (tensor<1x2x?x32xf32>, tensor<1x2x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
      : tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x32xf32>
      -> tensor<1x2x?x32xf32>, tensor<1x2x?xf32>
  return %o, %l : tensor<1x2x?x32xf32>, tensor<1x2x?xf32>
}

func.func @out_only(%q: tensor<1x2x?x64xf32>, %k: tensor<1x2x?x64xf32>, %v: tensor<1x2x?x64xf32>)
    -> tensor<1x2x?x64xf32> {
  %o, %l = attn.attention %q, %k, %v {causal}
      : tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32>
      -> tensor<1x2x?x64xf32>, tensor<1x2x?xf32>
  return %o : tensor<1x2x?x64xf32>
}
