// Element types on the host backend against the fp64 reference (computed
// from the rounded inputs): f32, f16 and bf16 in and out, f32 statistics.
// bf16_pinned pins tiles that are multiples of 16 but neither tensor-core
// kernel's default, which on sm_90a run on the mma.sync kernel.
//
// RUN: attnc %s -o %t.attnpkg
// RUN: attn-run %t.attnpkg --fn f32 --shape Nq=1000 --shape Nk=1000 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn f16 --shape Nq=1000 --shape Nk=1000 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn bf16 --shape Nq=1000 --shape Nk=1000 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn bf16 --shape Nq=7 --shape Nk=7 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn bf16_pinned --shape Nq=300 --shape Nk=500 --check | FileCheck %s

// CHECK: seed:
// CHECK: out: rel_err {{.*}} ok
// CHECK-NEXT: lse: rel_err {{.*}} ok

func.func @f32(%q: tensor<1x2x?x64xf32>, %k: tensor<1x2x?x64xf32>, %v: tensor<1x2x?x64xf32>)
    -> (tensor<1x2x?x64xf32>, tensor<1x2x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {causal}
      : tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32>
      -> tensor<1x2x?x64xf32>, tensor<1x2x?xf32>
  return %o, %l : tensor<1x2x?x64xf32>, tensor<1x2x?xf32>
}

func.func @f16(%q: tensor<1x2x?x64xf16>, %k: tensor<1x2x?x64xf16>, %v: tensor<1x2x?x64xf16>)
    -> (tensor<1x2x?x64xf16>, tensor<1x2x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {causal}
      : tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>
      -> tensor<1x2x?x64xf16>, tensor<1x2x?xf32>
  return %o, %l : tensor<1x2x?x64xf16>, tensor<1x2x?xf32>
}

func.func @bf16(%q: tensor<1x2x?x128xbf16>, %k: tensor<1x2x?x128xbf16>, %v: tensor<1x2x?x128xbf16>)
    -> (tensor<1x2x?x128xbf16>, tensor<1x2x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {causal}
      : tensor<1x2x?x128xbf16>, tensor<1x2x?x128xbf16>, tensor<1x2x?x128xbf16>
      -> tensor<1x2x?x128xbf16>, tensor<1x2x?xf32>
  return %o, %l : tensor<1x2x?x128xbf16>, tensor<1x2x?xf32>
}

func.func @bf16_pinned(%q: tensor<1x2x?x64xbf16>, %k: tensor<1x2x?x64xbf16>, %v: tensor<1x2x?x64xbf16>)
    -> (tensor<1x2x?x64xbf16>, tensor<1x2x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {tiles = #attn.tiles<block_m = 32, block_n = 48>}
      : tensor<1x2x?x64xbf16>, tensor<1x2x?x64xbf16>, tensor<1x2x?x64xbf16>
      -> tensor<1x2x?x64xbf16>, tensor<1x2x?xf32>
  return %o, %l : tensor<1x2x?x64xbf16>, tensor<1x2x?xf32>
}
