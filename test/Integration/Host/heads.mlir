// attn.split_heads and attn.merge_heads on the host: the layout change
// between projections and attention, with and without rotary tables,
// against the fp64 reference; their gradients (each the other op) against
// finite differences (--gradcheck); then the whole Llama-style block of
// examples/llama_block.mlir, forward and backward, in bf16.
//
// RUN: attnc %s -o %t.attnpkg
// RUN: attn-run %t.attnpkg --fn rope --shape d0_0=2 --shape d0_1=19 --check | FileCheck %s --check-prefix=OUT
// RUN: attn-run %t.attnpkg --fn rope_bwd --shape d0_0=2 --shape d0_1=19 --check --gradcheck | FileCheck %s --check-prefix=ROPE
// RUN: attn-run %t.attnpkg --fn heads_round_trip --shape d0_0=3 --shape d0_1=5 --check | FileCheck %s --check-prefix=OUT
// RUN: attn-run %t.attnpkg --fn attention_sublayer --shape B=2 --shape N=33 --check | FileCheck %s --check-prefix=OUT
// RUN: attnc %s -o %t.views.attnpkg --explain 2>&1 | FileCheck %s --check-prefix=VIEWS-EXPLAIN
// RUN: attn-run %t.attnpkg --fn heads_views --shape B=2 --shape N=21 --check | FileCheck %s --check-prefix=VIEWS
// RUN: attn-run %t.attnpkg --fn attention_sublayer_bwd --shape B=2 --shape N=33 --check --gradcheck | FileCheck %s --check-prefix=SUBLAYER
// RUN: attnc %s --deterministic-grad -o %t.det.attnpkg
// RUN: attn-run %t.det.attnpkg --fn attention_sublayer_bwd --shape B=2 --shape N=33 --check --gradcheck | FileCheck %s --check-prefix=SUBLAYER
//
// RUN: attnc %attnc_src_root/examples/llama_block.mlir -o %t.block.attnpkg --explain 2>&1 | FileCheck %s --check-prefix=BLOCK-EXPLAIN
// RUN: attn-run %t.block.attnpkg --fn llama_block --shape B=2 --shape N=40 --check | FileCheck %s --check-prefix=OUT
// RUN: attn-run %t.block.attnpkg --fn llama_block_bwd --shape B=2 --shape N=40 --check --gradcheck | FileCheck %s --check-prefix=BLOCK

// OUT: out: rel_err {{.*}} ok

// The tables take no gradient: the backward returns dx only.
// ROPE: gradcheck: {{.*}} ok
// ROPE: dx: rel_err {{.*}} ok
// ROPE-NOT: dcos

// SUBLAYER: gradcheck: {{.*}} ok
// SUBLAYER: dx: rel_err {{.*}} ok

// The block saves attention's out and lse for its backward, and its
// gradients are those of x and of the nine weights (the tables take none).
// BLOCK-EXPLAIN-DAG: llama_block_bwd: reads saved_out bf16
// BLOCK-EXPLAIN-DAG: llama_block_bwd: reads saved_lse f32
// BLOCK: gradcheck: {{.*}} ok
// BLOCK: dx: rel_err {{.*}} ok
// BLOCK-COUNT-9: rel_err {{.*}} ok
// BLOCK-NOT: rel_err

// Heads views: no kernel moves heads without rotary tables.
// VIEWS-EXPLAIN: heads_views: view v0 4 heads of x
// VIEWS-EXPLAIN: heads_views: view v1 4 heads of t0
// VIEWS-EXPLAIN-NOT: heads_views: kernel heads_views_{{split|merge}}_heads
// VIEWS: out: rel_err {{.*}} ok
// VIEWS: result1: rel_err {{.*}} ok
// VIEWS: result2: rel_err {{.*}} ok

// RoPE on two heads of 16, rotating the first 12 dims of each, f32.
func.func @rope(%x: tensor<?x?x32xf32>, %cos: tensor<?x6xf32>,
                %sin: tensor<?x6xf32>) -> tensor<?x2x?x16xf32>
    attributes {attn.backward} {
  %h = attn.split_heads %x, %cos, %sin
      : tensor<?x?x32xf32>, tensor<?x6xf32>, tensor<?x6xf32>
      -> tensor<?x2x?x16xf32>
  return %h : tensor<?x2x?x16xf32>
}

// Split then merge: the input again, widened to f32 (a round trip in one
// type folds away to the input, with no kernel).
func.func @heads_round_trip(%x: tensor<?x?x64xbf16>) -> tensor<?x?x64xf32> {
  %h = attn.split_heads %x : tensor<?x?x64xbf16> -> tensor<?x4x?x16xbf16>
  %y = attn.merge_heads %h : tensor<?x4x?x16xbf16> -> tensor<?x?x64xf32>
  return %y : tensor<?x?x64xf32>
}

// x + merge(attention(rope(x), rope(x), x)) over 2 heads of 16, f32.
func.func @attention_sublayer(%x: tensor<?x?x32xf32>, %cos: tensor<?x8xf32>,
                              %sin: tensor<?x8xf32>) -> tensor<?x?x32xf32>
    attributes {attn.backward} {
  %q = attn.split_heads %x, %cos, %sin
      : tensor<?x?x32xf32>, tensor<?x8xf32>, tensor<?x8xf32>
      -> tensor<?x2x?x16xf32>
  %v = attn.split_heads %x : tensor<?x?x32xf32> -> tensor<?x2x?x16xf32>
  %o, %lse = attn.attention %q, %q, %v {causal}
      : tensor<?x2x?x16xf32>, tensor<?x2x?x16xf32>, tensor<?x2x?x16xf32>
      -> tensor<?x2x?x16xf32>, tensor<?x2x?xf32>
  %m = attn.merge_heads %o : tensor<?x2x?x16xf32> -> tensor<?x?x32xf32>
  %y = arith.addf %x, %m : tensor<?x?x32xf32>
  return %y : tensor<?x?x32xf32>
}

// The split returned as it is is copied out of its heads view of x;
// attention writes its output into a heads view of the merge's buffer,
// where the cast after the merged value's last reader still finds it.
func.func @heads_views(%x: tensor<?x?x64xbf16>)
    -> (tensor<?x4x?x16xbf16>, tensor<?x?x64xf32>, tensor<?x4x?x16xf32>) {
  %h = attn.split_heads %x : tensor<?x?x64xbf16> -> tensor<?x4x?x16xbf16>
  %o, %lse = attn.attention %h, %h, %h {causal}
      : tensor<?x4x?x16xbf16>, tensor<?x4x?x16xbf16>, tensor<?x4x?x16xbf16>
      -> tensor<?x4x?x16xbf16>, tensor<?x4x?xf32>
  %m = attn.merge_heads %o : tensor<?x4x?x16xbf16> -> tensor<?x?x64xbf16>
  %a = attn.cast %m : tensor<?x?x64xbf16> to tensor<?x?x64xf32>
  %b = attn.cast %o : tensor<?x4x?x16xbf16> to tensor<?x4x?x16xf32>
  return %h, %a, %b : tensor<?x4x?x16xbf16>, tensor<?x?x64xf32>, tensor<?x4x?x16xf32>
}
