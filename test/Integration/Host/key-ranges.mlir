// Split-key attention (attn-split-keys: attn.attention_split, then
// attn.attention_combine) on the host against the fp64 reference of the
// attention it computes: decoding (Nq = 1) against a cache with GQA 4:1,
// more ranges than key tiles (empty ranges), a window that leaves most
// ranges empty, rows no key is allowed for (Nq > Nk, bottom-right), mask
// and score regions in bf16, and a dynamic query length split on request.
//
// RUN: attnc %s --key-ranges=4 -o %t.ranges.attnpkg --explain 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: attn-run %t.ranges.attnpkg --fn decode --shape B=2 --shape Nk=1000 --check | FileCheck %s
// RUN: attn-run %t.ranges.attnpkg --fn decode --shape B=3 --shape Nk=70 --check | FileCheck %s
// RUN: attn-run %t.ranges.attnpkg --fn decode --shape B=1 --shape Nk=1 --check | FileCheck %s
// RUN: attn-run %t.ranges.attnpkg --fn decode_window --shape B=2 --shape Nk=2000 --check | FileCheck %s
// RUN: attn-run %t.ranges.attnpkg --fn decode_head_bias --shape B=2 --shape Nk=1500 --check | FileCheck %s
// RUN: attn-run %t.ranges.attnpkg --fn chunk --shape Nk=3 --check | FileCheck %s
// RUN: attn-run %t.ranges.attnpkg --fn chunk --shape Nk=777 --check | FileCheck %s
// RUN: attn-run %t.ranges.attnpkg --fn regions_bf16 --shape Nk=777 --check | FileCheck %s
// RUN: attn-run %t.ranges.attnpkg --fn prefill --shape Nq=300 --shape Nk=300 --check | FileCheck %s
//
// attnc's own choice: whole on the host; for sm_90a it splits decoding.
// RUN: attnc %s -o %t.attnpkg
// RUN: attn-run %t.attnpkg --fn decode --shape B=2 --shape Nk=1000 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn regions_bf16 --shape Nk=777 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn decode_head_bias --shape B=2 --shape Nk=1500 --check | FileCheck %s
// Whole attention (for sm_90a, one packed block per key/value head):
// RUN: attnc %s --key-ranges=1 -o %t.whole.attnpkg
// RUN: attn-run %t.whole.attnpkg --fn decode_head_bias --shape B=2 --shape Nk=1500 --check | FileCheck %s
// RUN: attn-run %t.whole.attnpkg --fn decode_window --shape B=2 --shape Nk=2000 --check | FileCheck %s
// RUN: attnc %s --emit=mlir -o - | FileCheck %s --check-prefix=WHOLE
// RUN: attn-opt %s --attn-split-keys=target=sm_90a | FileCheck %s --check-prefix=GPU

// EXPLAIN: decode: buffer t0 f32 [4, B, 8, 1, 64]
// EXPLAIN: decode: buffer t1 f32 [4, B, 8, 1]
// EXPLAIN: decode: kernel decode_attention_split0
// EXPLAIN: decode: kernel decode_attention_combine1
// EXPLAIN: compile time: startup, parse and frontend {{[0-9]+}} ms, programs {{[0-9]+}} ms, kernels {{[0-9]+}} ms, LLVM {{[0-9]+}} ms, total {{[0-9]+}} ms

// CHECK: seed:
// CHECK: out: rel_err {{.*}} ok
// CHECK-NEXT: lse: rel_err {{.*}} ok

// WHOLE-NOT: attention_split

// f32 has no tensor-core kernel to split for; a dynamic Nq is not decoding.
// GPU-LABEL: func.func @decode(
// GPU-NOT: attention_split
// GPU: attn.attention %
// GPU-LABEL: func.func @regions_bf16(
// GPU: attn.attention_split {{.*}} -> tensor<32x1x4x5x64xf32>, tensor<32x1x4x5xf32>
// GPU: attn.attention_combine
// GPU-LABEL: func.func @prefill(
// GPU-NOT: attention_split
// GPU: attn.attention %

!q = tensor<?x8x1x64xf32>
!kv = tensor<?x2x?x64xf32>
!l = tensor<?x8x1xf32>

func.func @decode(%q: !q, %k: !kv, %v: !kv) -> (!q, !l) {
  %o, %l = attn.attention %q, %k, %v {causal, bottom_right} : !q, !kv, !kv -> !q, !l
  return %o, %l : !q, !l
}

func.func @decode_window(%q: !q, %k: !kv, %v: !kv) -> (!q, !l) {
  %o, %l = attn.attention %q, %k, %v {causal, bottom_right, window_left = 100}
      : !q, !kv, !kv -> !q, !l
  return %o, %l : !q, !l
}

// A score and a mask that depend on the head: on a GPU the heads of a
// key/value group share a block's rows, each with its own bias and mask.
func.func @decode_head_bias(%q: !q, %k: !kv, %v: !kv) -> (!q, !l) {
  %o, %l = attn.attention %q, %k, %v : !q, !kv, !kv -> !q, !l
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %c100 = arith.constant 100 : index
      %first = arith.muli %h, %c100 : index
      %ok = arith.cmpi uge, %ki, %first : index
      attn.yield %ok : i1
    }
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %hi = arith.index_cast %h : index to i64
      %hf = arith.sitofp %hi : i64 to f32
      %ki64 = arith.index_cast %ki : index to i64
      %kf = arith.sitofp %ki64 : i64 to f32
      %slope = arith.constant 0.001 : f32
      %m = arith.mulf %hf, %slope : f32
      %bias = arith.mulf %m, %kf : f32
      %r = arith.subf %s, %bias : f32
      attn.yield %r : f32
    }
  return %o, %l : !q, !l
}

// Rows 0 and 1 see no key when Nk = 3.
func.func @chunk(%q: tensor<1x2x5x32xf32>, %k: tensor<1x2x?x32xf32>, %v: tensor<1x2x?x32xf32>)
    -> (tensor<1x2x5x32xf32>, tensor<1x2x5xf32>) {
  %o, %l = attn.attention %q, %k, %v {causal, bottom_right}
      : tensor<1x2x5x32xf32>, tensor<1x2x?x32xf32>, tensor<1x2x?x32xf32>
      -> tensor<1x2x5x32xf32>, tensor<1x2x5xf32>
  return %o, %l : tensor<1x2x5x32xf32>, tensor<1x2x5xf32>
}

// Every other key, softcapped.
func.func @regions_bf16(%q: tensor<1x4x5x64xbf16>, %k: tensor<1x4x?x64xbf16>, %v: tensor<1x4x?x64xbf16>)
    -> (tensor<1x4x5x64xbf16>, tensor<1x4x5xf32>) {
  %o, %l = attn.attention %q, %k, %v
      : tensor<1x4x5x64xbf16>, tensor<1x4x?x64xbf16>, tensor<1x4x?x64xbf16>
      -> tensor<1x4x5x64xbf16>, tensor<1x4x5xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %c2 = arith.constant 2 : index
      %r = arith.remui %ki, %c2 : index
      %c0 = arith.constant 0 : index
      %even = arith.cmpi eq, %r, %c0 : index
      attn.yield %even : i1
    }
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %cap = arith.constant 20.0 : f32
      %x = arith.divf %s, %cap : f32
      %t = math.tanh %x : f32
      %r = arith.mulf %t, %cap : f32
      attn.yield %r : f32
    }
  return %o, %l : tensor<1x4x5x64xbf16>, tensor<1x4x5xf32>
}

func.func @prefill(%q: tensor<1x2x?x64xf32>, %k: tensor<1x2x?x64xf32>, %v: tensor<1x2x?x64xf32>)
    -> (tensor<1x2x?x64xf32>, tensor<1x2x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {causal}
      : tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32>
      -> tensor<1x2x?x64xf32>, tensor<1x2x?xf32>
  return %o, %l : tensor<1x2x?x64xf32>, tensor<1x2x?xf32>
}
