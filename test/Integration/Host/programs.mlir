// Functions of several ops run as programs of kernels on the host, checked
// against the fp64 reference of the whole function: attention followed by a
// scaled cast, attention feeding attention through an intermediate buffer,
// two intermediates sharing memory, an input returned as it is and a value
// returned twice (copied by kernels of their own), an element-wise result
// written over its operand's buffer.
//
// RUN: attnc %s -o %t.attnpkg --explain 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: attn-run %t.attnpkg --fn attention_cast --shape B=2 --shape Nq=200 --shape Nk=130 --check | FileCheck %s --check-prefix=CAST
// RUN: attn-run %t.attnpkg --fn attention_cast --shape B=1 --shape Nq=1 --shape Nk=1 --check | FileCheck %s --check-prefix=CAST
// RUN: attn-run %t.attnpkg --fn attention_chain --shape B=2 --shape Nq=150 --shape Nk=77 --check | FileCheck %s --check-prefix=CHAIN
// RUN: attn-run %t.attnpkg --fn three_steps --shape N=90 --shape Nk=130 --check | FileCheck %s --check-prefix=THREE
// RUN: attn-run %t.attnpkg --fn copies --shape d0_1=70 --check | FileCheck %s --check-prefix=COPIES
// RUN: attn-run %t.attnpkg --fn reused --shape d0_0=5 --check | FileCheck %s --check-prefix=REUSED

// EXPLAIN-DAG: attention_cast: buffer t0 f32 [B, 4, Nq, 32] slot 0
// EXPLAIN-DAG: attention_cast: kernel attention_cast_attention0, entry attention_cast_attention0_entry, block 1, dynamic shared memory 0 bytes, tiles block_m=16 block_n=32
// EXPLAIN-DAG: attention_cast: kernel attention_cast_cast1, entry attention_cast_cast1_entry, block 1, dynamic shared memory 0 bytes, tiles block_size=16384
// EXPLAIN-DAG: three_steps: buffer t0 f32 [1, 2, N, 32] slot 0
// EXPLAIN-DAG: three_steps: buffer t1 f32 [1, 2, N, 32] slot 1
// EXPLAIN-DAG: three_steps: buffer t2 bf16 [1, 2, N, 32] slot 0

// CAST: out: rel_err {{.*}} ok
// CAST-NEXT: lse: rel_err {{.*}} ok

// CHAIN: out: rel_err {{.*}} ok

// THREE: out: rel_err {{.*}} ok

// The sum takes over t1, the buffer of the cast it reads; its output is
// still held to bf16's tolerance, which the cast that first wrote t1 went
// through.
// EXPLAIN-DAG: reused: buffer t1 f32 [d0_0, 16] slot 1
// EXPLAIN-NOT: reused: buffer t2
// REUSED: out: rel_err {{.*}} (tol 0.02) ok

// COPIES: result0: rel_err {{.*}} ok
// COPIES-NEXT: out: rel_err {{.*}} ok
// COPIES-NEXT: result2: rel_err {{.*}} ok

!qkv = tensor<?x4x?x32xf32>
!lse = tensor<?x4x?xf32>

// attention -> bf16 with a scale, lse returned too.
func.func @attention_cast(%q: !qkv, %k: !qkv, %v: !qkv) -> (tensor<?x4x?x32xbf16>, !lse) {
  %o, %l = attn.attention %q, %k, %v {causal, tiles = #attn.tiles<block_m = 16, block_n = 32>}
      : !qkv, !qkv, !qkv -> !qkv, !lse
  %c = attn.cast %o {scale = 4.0 : f32} : !qkv to tensor<?x4x?x32xbf16>
  return %c, %l : tensor<?x4x?x32xbf16>, !lse
}

// The output of one attention is the query of the next.
func.func @attention_chain(%q: !qkv, %k: !qkv, %v: !qkv) -> !qkv {
  %o1, %l1 = attn.attention %q, %k, %v {tiles = #attn.tiles<block_m = 16, block_n = 32>}
      : !qkv, !qkv, !qkv -> !qkv, !lse
  %o2, %l2 = attn.attention %o1, %k, %v {causal, tiles = #attn.tiles<block_m = 32, block_n = 16>}
      : !qkv, !qkv, !qkv -> !qkv, !lse
  return %o2 : !qkv
}

// Four kernels, three intermediates: t0 is freed before t2 exists, so t2
// reuses its memory. The last attention reads one tensor as q, k and v, so
// its query and key lengths are one symbol, N; the inputs' keys are Nk.
!q3 = tensor<1x2x?x32xf32>
!kv3 = tensor<1x2x?x32xf32>
func.func @three_steps(%q: !q3, %k: !kv3, %v: !kv3) -> tensor<1x2x?x32xbf16> {
  %o1, %l1 = attn.attention %q, %k, %v {tiles = #attn.tiles<block_m = 16, block_n = 16>}
      : !q3, !kv3, !kv3 -> !q3, tensor<1x2x?xf32>
  %o2, %l2 = attn.attention %o1, %k, %v {window_left = 20 : i64, tiles = #attn.tiles<block_m = 16, block_n = 16>}
      : !q3, !kv3, !kv3 -> !q3, tensor<1x2x?xf32>
  %c = attn.cast %o2 {scale = 0.5 : f32} : !q3 to tensor<1x2x?x32xbf16>
  %o3, %l3 = attn.attention %c, %c, %c {tiles = #attn.tiles<block_m = 16, block_n = 16>}
      : tensor<1x2x?x32xbf16>, tensor<1x2x?x32xbf16>, tensor<1x2x?x32xbf16>
      -> tensor<1x2x?x32xbf16>, tensor<1x2x?xf32>
  return %o3 : tensor<1x2x?x32xbf16>
}

// An input returned as it is and a result returned twice. The dim no op
// names is called after its place: argument 0, dim 1.
func.func @copies(%x: tensor<3x?xf32>) -> (tensor<3x?xf32>, tensor<3x?xf16>, tensor<3x?xf16>) {
  %h = attn.cast %x : tensor<3x?xf32> to tensor<3x?xf16>
  return %x, %h, %h : tensor<3x?xf32>, tensor<3x?xf16>, tensor<3x?xf16>
}

func.func @reused(%x: tensor<?x16xf32>, %w: tensor<16x16xf32>) -> tensor<?x16xf32> {
  %h = attn.cast %x : tensor<?x16xf32> to tensor<?x16xbf16>
  %g = attn.cast %h : tensor<?x16xbf16> to tensor<?x16xf32>
  %k = arith.addf %g, %x : tensor<?x16xf32>
  %m = attn.matmul %k, %w : tensor<?x16xf32>, tensor<16x16xf32> -> tensor<?x16xf32>
  return %m : tensor<?x16xf32>
}
