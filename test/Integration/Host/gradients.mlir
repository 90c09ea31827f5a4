// Attention backward functions derived by the compiler (attn.backward), run
// on the host and checked against the fp64 reference gradients: attn-run
// gives each @f_bwd the reference out and lse of @f on its random q, k, v
// and a random dout. Cases mirror the forward ones: no mask, causal,
// windows, prefix-LM, documents, a mask region with holes and an empty row,
// ALiBi and softcap score regions, GQA 4:1 and MQA, head dims 64/96/128/256,
// Dv != D, Nq != Nk, lengths 1, 7 and 1000, f32/f16/bf16; dq by atomic
// accumulation (default) and by its own kernel (--deterministic-grad).
// With a single key (Nk = 1), dq and dk are zero in exact arithmetic
// (dS = P (dP - D) = 0) and the kernels' roundoff is checked against
// attn-run's zero floor; the 16-bit case keeps that within tolerance.
//
// RUN: attnc %s -o %t.attnpkg --explain 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: attn-run %t.attnpkg --fn plain_bwd --shape B=1 --shape Nq=7 --shape Nk=7 --check | FileCheck %s --check-prefix=QKV
// RUN: attn-run %t.attnpkg --fn plain_bwd --shape B=2 --shape Nq=1 --shape Nk=7 --check | FileCheck %s --check-prefix=QKV
// RUN: attn-run %t.attnpkg --fn plain_bwd --shape B=1 --shape Nq=1000 --shape Nk=1000 --check | FileCheck %s --check-prefix=QKV
// RUN: attn-run %t.attnpkg --fn causal_gqa_bwd --shape B=2 --shape Nq=130 --shape Nk=130 --check | FileCheck %s --check-prefix=QKV
// RUN: attn-run %t.attnpkg --fn causal_gqa_bwd --shape B=1 --shape Nq=1000 --shape Nk=1000 --check | FileCheck %s --check-prefix=QKV
// RUN: attn-run %t.attnpkg --fn window_mqa_bwd --shape B=2 --shape Nq=77 --shape Nk=150 --check | FileCheck %s --check-prefix=QKV
// RUN: attn-run %t.attnpkg --fn window_mqa_bwd --shape B=1 --shape Nq=7 --shape Nk=1 --check | FileCheck %s --check-prefix=QKV
// RUN: attn-run %t.attnpkg --fn bottom_right_bwd --shape B=2 --shape Nq=40 --shape Nk=150 --check | FileCheck %s --check-prefix=QKV
// RUN: attn-run %t.attnpkg --fn bottom_right_bwd --shape B=1 --shape Nq=150 --shape Nk=70 --check | FileCheck %s --check-prefix=QKV
// RUN: attn-run %t.attnpkg --fn prefix_lm_bwd --shape Nq=200 --shape Nk=200 --check | FileCheck %s --check-prefix=QKV
// RUN: attn-run %t.attnpkg --fn documents_bwd --shape B=1 --shape Nq=300 --shape Nk=300 --check | FileCheck %s --check-prefix=QKV
// RUN: attn-run %t.attnpkg --fn holes_bwd --shape B=2 --shape Nq=70 --shape Nk=90 --check | FileCheck %s --check-prefix=QKV
// RUN: attn-run %t.attnpkg --fn alibi_bwd --shape B=1 --shape Nq=160 --shape Nk=160 --check | FileCheck %s --check-prefix=QKV
// RUN: attn-run %t.attnpkg --fn softcap_bwd --shape B=2 --shape Nq=100 --shape Nk=64 --check | FileCheck %s --check-prefix=QKV
// RUN: attn-run %t.attnpkg --fn smooth_ops_bwd --shape Nq=40 --shape Nk=50 --check | FileCheck %s --check-prefix=QKV
// RUN: attn-run %t.attnpkg --fn recomputed_bwd --shape B=2 --shape Nq=33 --shape Nk=20 --check | FileCheck %s --check-prefix=QKV
//
// RUN: attnc %s --deterministic-grad -o %t.det.attnpkg --explain 2>&1 | FileCheck %s --check-prefix=DETERMINISTIC
// RUN: attn-run %t.det.attnpkg --fn causal_gqa_bwd --shape B=2 --shape Nq=130 --shape Nk=130 --check --repeat 10 | FileCheck %s --check-prefixes=QKV,REPEAT
// RUN: attn-run %t.det.attnpkg --fn bottom_right_bwd --shape B=2 --shape Nq=40 --shape Nk=150 --check | FileCheck %s --check-prefix=QKV
// RUN: attn-run %t.det.attnpkg --fn holes_bwd --shape B=2 --shape Nq=70 --shape Nk=90 --check | FileCheck %s --check-prefix=QKV
// RUN: attn-run %t.det.attnpkg --fn softcap_bwd --shape B=2 --shape Nq=100 --shape Nk=64 --check | FileCheck %s --check-prefix=QKV

// EXPLAIN: causal_gqa_bwd: dq by atomic f32 accumulation
// EXPLAIN-DAG: causal_gqa_bwd: kernel causal_gqa_bwd_attention_grad_delta0
// EXPLAIN-DAG: causal_gqa_bwd: kernel causal_gqa_bwd_attention_grad_kv1
// EXPLAIN-DAG: causal_gqa_bwd: kernel causal_gqa_bwd_cast2

// DETERMINISTIC: causal_gqa_bwd: dq by its own kernel (deterministic)
// DETERMINISTIC-DAG: causal_gqa_bwd: kernel causal_gqa_bwd_attention_grad_kv1
// DETERMINISTIC-DAG: causal_gqa_bwd: kernel causal_gqa_bwd_attention_grad_q2

// QKV: saved values: the fp64 reference of
// QKV: dq: rel_err {{.*}} ok
// QKV-NEXT: dk: rel_err {{.*}} ok
// QKV-NEXT: dv: rel_err {{.*}} ok

// REPEAT: repeat: outputs bitwise identical over 10 runs

func.func @plain(%q: tensor<?x2x?x64xf32>, %k: tensor<?x2x?x64xf32>,
                 %v: tensor<?x2x?x64xf32>)
    -> (tensor<?x2x?x64xf32>, tensor<?x2x?xf32>) attributes {attn.backward} {
  %out, %lse = attn.attention %q, %k, %v
      : tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32>
      -> tensor<?x2x?x64xf32>, tensor<?x2x?xf32>
  return %out, %lse : tensor<?x2x?x64xf32>, tensor<?x2x?xf32>
}

// GQA 4:1, head dim 128.
func.func @causal_gqa(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x2x?x128xbf16>,
                      %v: tensor<?x2x?x128xbf16>)
    -> (tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>) attributes {attn.backward} {
  %out, %lse = attn.attention %q, %k, %v {causal}
      : tensor<?x8x?x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16>
      -> tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>
  return %out, %lse : tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>
}

// MQA, head dim 96 with Dv = 64, a two-sided window, Nq != Nk.
// Causal and a window aligned with the last key (chunked prefill): with
// Nq > Nk the first rows see no key and get zero gradients.
func.func @bottom_right(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>,
                        %v: tensor<?x2x?x64xbf16>)
    -> (tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>) attributes {attn.backward} {
  %out, %lse = attn.attention %q, %k, %v {causal, bottom_right, window_left = 50}
      : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16>
      -> tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>
  return %out, %lse : tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>
}

func.func @window_mqa(%q: tensor<?x4x?x96xf16>, %k: tensor<?x1x?x96xf16>,
                      %v: tensor<?x1x?x64xf16>)
    -> (tensor<?x4x?x64xf16>, tensor<?x4x?xf32>) attributes {attn.backward} {
  %out, %lse = attn.attention %q, %k, %v {window_left = 16, window_right = 8}
      : tensor<?x4x?x96xf16>, tensor<?x1x?x96xf16>, tensor<?x1x?x64xf16>
      -> tensor<?x4x?x64xf16>, tensor<?x4x?xf32>
  return %out, %lse : tensor<?x4x?x64xf16>, tensor<?x4x?xf32>
}

// Prefix-LM mask region, head dim 256.
func.func @prefix_lm(%q: tensor<1x2x?x256xf32>, %k: tensor<1x2x?x256xf32>,
                     %v: tensor<1x2x?x256xf32>)
    -> (tensor<1x2x?x256xf32>, tensor<1x2x?xf32>) attributes {attn.backward} {
  %out, %lse = attn.attention %q, %k, %v
      : tensor<1x2x?x256xf32>, tensor<1x2x?x256xf32>, tensor<1x2x?x256xf32>
      -> tensor<1x2x?x256xf32>, tensor<1x2x?xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %prefix_len = arith.constant 48 : index
      %in_prefix = arith.cmpi slt, %ki, %prefix_len : index
      %causal = arith.cmpi sle, %ki, %qi : index
      %allowed = arith.ori %in_prefix, %causal : i1
      attn.yield %allowed : i1
    }
  return %out, %lse : tensor<1x2x?x256xf32>, tensor<1x2x?xf32>
}

// Packed documents of 64 tokens, causal inside each.
func.func @documents(%q: tensor<?x2x?x64xbf16>, %k: tensor<?x2x?x64xbf16>,
                     %v: tensor<?x2x?x64xbf16>)
    -> (tensor<?x2x?x64xbf16>, tensor<?x2x?xf32>) attributes {attn.backward} {
  %out, %lse = attn.attention %q, %k, %v {causal}
      : tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16>
      -> tensor<?x2x?x64xbf16>, tensor<?x2x?xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %doc_len = arith.constant 64 : index
      %qdoc = arith.divui %qi, %doc_len : index
      %kdoc = arith.divui %ki, %doc_len : index
      %same = arith.cmpi eq, %qdoc, %kdoc : index
      attn.yield %same : i1
    }
  return %out, %lse : tensor<?x2x?x64xbf16>, tensor<?x2x?xf32>
}

// Holes: strictly earlier keys whose index sum is not a multiple of 3; row 0
// sees no key (its gradients are zero).
func.func @holes(%q: tensor<?x2x?x32xf32>, %k: tensor<?x2x?x32xf32>,
                 %v: tensor<?x2x?x48xf32>)
    -> (tensor<?x2x?x48xf32>, tensor<?x2x?xf32>) attributes {attn.backward} {
  %out, %lse = attn.attention %q, %k, %v
      : tensor<?x2x?x32xf32>, tensor<?x2x?x32xf32>, tensor<?x2x?x48xf32>
      -> tensor<?x2x?x48xf32>, tensor<?x2x?xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %three = arith.constant 3 : index
      %zero = arith.constant 0 : index
      %earlier = arith.cmpi ult, %ki, %qi : index
      %sum = arith.addi %qi, %ki : index
      %rem = arith.remui %sum, %three : index
      %kept = arith.cmpi ne, %rem, %zero : index
      %allowed = arith.andi %earlier, %kept : i1
      attn.yield %allowed : i1
    }
  return %out, %lse : tensor<?x2x?x48xf32>, tensor<?x2x?xf32>
}

// ALiBi: a per-head slope times the distance, causal.
func.func @alibi(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x4x?x64xbf16>,
                 %v: tensor<?x4x?x64xbf16>)
    -> (tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>) attributes {attn.backward} {
  %out, %lse = attn.attention %q, %k, %v {causal}
      : tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>
      -> tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %one = arith.constant 1 : index
      %h1 = arith.addi %h, %one : index
      %hi = arith.index_cast %h1 : index to i64
      %hf = arith.sitofp %hi : i64 to f32
      %base = arith.constant 0.5 : f32
      %slope = math.powf %base, %hf : f32
      %d = arith.subi %qi, %ki : index
      %di = arith.index_cast %d : index to i64
      %df = arith.sitofp %di : i64 to f32
      %bias = arith.mulf %df, %slope : f32
      %r = arith.subf %s, %bias : f32
      attn.yield %r : f32
    }
  return %out, %lse : tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>
}

// Softcap 2 (small enough that tanh saturates for some scores).
func.func @softcap(%q: tensor<?x2x?x64xf32>, %k: tensor<?x2x?x64xf32>,
                   %v: tensor<?x2x?x64xf32>)
    -> (tensor<?x2x?x64xf32>, tensor<?x2x?xf32>) attributes {attn.backward} {
  %out, %lse = attn.attention %q, %k, %v
      : tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32>
      -> tensor<?x2x?x64xf32>, tensor<?x2x?xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %cap = arith.constant 2.0 : f32
      %x = arith.divf %s, %cap : f32
      %t = math.tanh %x : f32
      %r = arith.mulf %t, %cap : f32
      attn.yield %r : f32
    }
  return %out, %lse : tensor<?x2x?x64xf32>, tensor<?x2x?xf32>
}

// Every op of the region op table with a derivative rule (Smooth, and
// select), each on the score: the compiler's derivative region against the
// reference's independent one. Arguments stay in each op's domain, and
// float casts go through f64 (the reference computes every float type in
// double, so a round trip through f16 would differ in value, not in
// derivative).
func.func @smooth_ops(%q: tensor<1x1x?x16xf32>, %k: tensor<1x1x?x16xf32>,
                      %v: tensor<1x1x?x16xf32>)
    -> (tensor<1x1x?x16xf32>, tensor<1x1x?xf32>) attributes {attn.backward} {
  %out, %lse = attn.attention %q, %k, %v
      : tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32>
      -> tensor<1x1x?x16xf32>, tensor<1x1x?xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %zero = arith.constant 0.0 : f32
      %tenth = arith.constant 0.1 : f32
      %half = arith.constant 0.5 : f32
      %one = arith.constant 1.0 : f32
      %two = arith.constant 2.0 : f32
      %seven = arith.constant 0.7 : f32
      %s2 = arith.mulf %s, %s : f32
      %pos = arith.addf %s2, %one : f32
      %small = arith.mulf %s, %tenth : f32
      %t0 = math.tanh %s : f32
      %t1 = math.exp %small : f32
      %t2 = math.exp2 %small : f32
      %t3 = math.expm1 %small : f32
      %t4 = math.log %pos : f32
      %t5 = math.log2 %pos : f32
      %t6 = math.log1p %s2 : f32
      %t7 = math.erf %s : f32
      %t8 = math.sin %s : f32
      %t9 = math.cos %s : f32
      %t10 = math.atan %s : f32
      %t11 = math.absf %s : f32
      %t12 = math.sqrt %pos : f32
      %t13 = math.rsqrt %pos : f32
      %t14 = math.powf %pos, %half : f32
      %t15 = math.powf %two, %small : f32
      %neg1 = arith.negf %one : f32
      %t16 = math.copysign %s, %neg1 : f32
      %t17 = math.fma %s, %half, %small : f32
      %t18 = arith.divf %s, %pos : f32
      %t19 = arith.remf %s, %seven : f32
      %t20 = arith.negf %s : f32
      %t21 = arith.maximumf %s, %zero : f32
      %t22 = arith.minimumf %s, %half : f32
      %t23 = arith.maxnumf %s, %zero : f32
      %t24 = arith.minnumf %s, %half : f32
      %wide = arith.extf %s : f32 to f64
      %t25 = arith.truncf %wide : f64 to f32
      %w2 = arith.mulf %wide, %wide : f64
      %t26 = arith.truncf %w2 : f64 to f32
      %positive = arith.cmpf ogt, %s, %zero : f32
      %t27 = arith.select %positive, %s, %t20 : f32
      %t28 = arith.subf %t0, %t1 : f32
      %a0 = arith.addf %t28, %t2 : f32
      %a1 = arith.addf %a0, %t3 : f32
      %a2 = arith.addf %a1, %t4 : f32
      %a3 = arith.addf %a2, %t5 : f32
      %a4 = arith.addf %a3, %t6 : f32
      %a5 = arith.addf %a4, %t7 : f32
      %a6 = arith.addf %a5, %t8 : f32
      %a7 = arith.addf %a6, %t9 : f32
      %a8 = arith.addf %a7, %t10 : f32
      %a9 = arith.addf %a8, %t11 : f32
      %a10 = arith.addf %a9, %t12 : f32
      %a11 = arith.addf %a10, %t13 : f32
      %a12 = arith.addf %a11, %t14 : f32
      %a13 = arith.addf %a12, %t15 : f32
      %a14 = arith.addf %a13, %t16 : f32
      %a15 = arith.addf %a14, %t17 : f32
      %a16 = arith.addf %a15, %t18 : f32
      %a17 = arith.addf %a16, %t19 : f32
      %a18 = arith.addf %a17, %t20 : f32
      %a19 = arith.addf %a18, %t21 : f32
      %a20 = arith.addf %a19, %t22 : f32
      %a21 = arith.addf %a20, %t23 : f32
      %a22 = arith.addf %a21, %t24 : f32
      %a23 = arith.addf %a22, %t25 : f32
      %a24 = arith.addf %a23, %t26 : f32
      %a25 = arith.addf %a24, %t27 : f32
      %r = arith.mulf %a25, %tenth : f32
      attn.yield %r : f32
    }
  return %out, %lse : tensor<1x1x?x16xf32>, tensor<1x1x?xf32>
}

// A function that returns lse first and a cast of out: the backward
// recomputes the attention (out itself is not saved), differentiates the
// cast, and its saved inputs keep the forward's symbols though no backward
// op reads the saved cast.
func.func @recomputed(%q: tensor<?x2x?x16xf32>, %k: tensor<?x2x?x16xf32>,
                      %v: tensor<?x2x?x16xf32>)
    -> (tensor<?x2x?xf32>, tensor<?x2x?x16xbf16>) attributes {attn.backward} {
  %out, %lse = attn.attention %q, %k, %v
      : tensor<?x2x?x16xf32>, tensor<?x2x?x16xf32>, tensor<?x2x?x16xf32>
      -> tensor<?x2x?x16xf32>, tensor<?x2x?xf32>
  %c = attn.cast %out : tensor<?x2x?x16xf32> to tensor<?x2x?x16xbf16>
  return %lse, %c : tensor<?x2x?xf32>, tensor<?x2x?x16xbf16>
}
