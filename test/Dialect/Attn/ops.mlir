// RUN: attn-opt %s | attn-opt | FileCheck %s
// RUN: attn-opt %s --mlir-print-op-generic | attn-opt | FileCheck %s

// Round trip of every attn op through the custom and the generic form.

//===----------------------------------------------------------------------===//
// attn.attention: shapes and attributes
//===----------------------------------------------------------------------===//

// Plain multi-head attention with Nq != Nk and Dv != D, f32.
// CHECK-LABEL: func @attention_plain(
// CHECK-SAME: %[[Q:[a-zA-Z0-9_]+]]: tensor<2x8x128x64xf32>, %[[K:[a-zA-Z0-9_]+]]: tensor<2x8x256x64xf32>, %[[V:[a-zA-Z0-9_]+]]: tensor<2x8x256x32xf32>)
func.func @attention_plain(%q: tensor<2x8x128x64xf32>, %k: tensor<2x8x256x64xf32>,
                           %v: tensor<2x8x256x32xf32>)
    -> (tensor<2x8x128x32xf32>, tensor<2x8x128xf32>) {
  // CHECK: %[[OUT:.*]], %[[LSE:.*]] = attn.attention %[[Q]], %[[K]], %[[V]] :
  // CHECK-SAME: tensor<2x8x128x64xf32>, tensor<2x8x256x64xf32>, tensor<2x8x256x32xf32> -> tensor<2x8x128x32xf32>, tensor<2x8x128xf32>{{$}}
  // CHECK-NEXT: return %[[OUT]], %[[LSE]]
  %out, %lse = attn.attention %q, %k, %v
      : tensor<2x8x128x64xf32>, tensor<2x8x256x64xf32>, tensor<2x8x256x32xf32>
      -> tensor<2x8x128x32xf32>, tensor<2x8x128xf32>
  return %out, %lse : tensor<2x8x128x32xf32>, tensor<2x8x128xf32>
}

// Dynamic batch and sequence dims, f16.
// CHECK-LABEL: func @attention_dynamic_batch_and_seq(
// CHECK-SAME: %[[Q:[a-zA-Z0-9_]+]]: tensor<?x8x?x64xf16>, %[[K:[a-zA-Z0-9_]+]]: tensor<?x8x?x64xf16>, %[[V:[a-zA-Z0-9_]+]]: tensor<?x8x?x64xf16>)
func.func @attention_dynamic_batch_and_seq(%q: tensor<?x8x?x64xf16>, %k: tensor<?x8x?x64xf16>,
                                           %v: tensor<?x8x?x64xf16>)
    -> (tensor<?x8x?x64xf16>, tensor<?x8x?xf32>) {
  // CHECK: attn.attention %[[Q]], %[[K]], %[[V]] :
  // CHECK-SAME: tensor<?x8x?x64xf16>, tensor<?x8x?x64xf16>, tensor<?x8x?x64xf16> -> tensor<?x8x?x64xf16>, tensor<?x8x?xf32>{{$}}
  %out, %lse = attn.attention %q, %k, %v
      : tensor<?x8x?x64xf16>, tensor<?x8x?x64xf16>, tensor<?x8x?x64xf16>
      -> tensor<?x8x?x64xf16>, tensor<?x8x?xf32>
  return %out, %lse : tensor<?x8x?x64xf16>, tensor<?x8x?xf32>
}

// The causal shorthand, bf16.
// CHECK-LABEL: func @attention_causal(
func.func @attention_causal(%q: tensor<1x4x64x32xbf16>, %k: tensor<1x4x64x32xbf16>,
                            %v: tensor<1x4x64x32xbf16>)
    -> (tensor<1x4x64x32xbf16>, tensor<1x4x64xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {causal} :
  // CHECK-SAME: tensor<1x4x64x32xbf16>, tensor<1x4x64x32xbf16>, tensor<1x4x64x32xbf16> -> tensor<1x4x64x32xbf16>, tensor<1x4x64xf32>{{$}}
  %out, %lse = attn.attention %q, %k, %v {causal}
      : tensor<1x4x64x32xbf16>, tensor<1x4x64x32xbf16>, tensor<1x4x64x32xbf16>
      -> tensor<1x4x64x32xbf16>, tensor<1x4x64xf32>
  return %out, %lse : tensor<1x4x64x32xbf16>, tensor<1x4x64xf32>
}

// Sliding window on both sides; window_right = 0 is kept (it is not the
// default), and the i64 type is printed.
// CHECK-LABEL: func @attention_bottom_right(
func.func @attention_bottom_right(%q: tensor<1x4x1x32xf16>, %k: tensor<1x4x?x32xf16>,
                                  %v: tensor<1x4x?x32xf16>)
    -> (tensor<1x4x1x32xf16>, tensor<1x4x1xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {bottom_right, causal, window_left = 1024 : i64} :
  %out, %lse = attn.attention %q, %k, %v {causal, bottom_right, window_left = 1024}
      : tensor<1x4x1x32xf16>, tensor<1x4x?x32xf16>, tensor<1x4x?x32xf16>
      -> tensor<1x4x1x32xf16>, tensor<1x4x1xf32>
  return %out, %lse : tensor<1x4x1x32xf16>, tensor<1x4x1xf32>
}

// CHECK-LABEL: func @attention_split_and_combine(
func.func @attention_split_and_combine(%q: tensor<?x32x1x128xbf16>, %k: tensor<?x8x?x128xbf16>)
    -> (tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>) {
  // CHECK: %[[PO:.+]], %[[PL:.+]] = attn.attention_split %{{.+}}, %{{.+}}, %{{.+}} {bottom_right, causal, tiles = #attn.tiles<block_m = 16, block_n = 64, mma = mma_sync, pack_group = true>} : tensor<?x32x1x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16> -> tensor<16x?x32x1x128xf32>, tensor<16x?x32x1xf32> mask {
  %po, %pl = attn.attention_split %q, %k, %k {causal, bottom_right, tiles = #attn.tiles<block_m = 16, block_n = 64, mma = mma_sync, pack_group = true>}
      : tensor<?x32x1x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>
      -> tensor<16x?x32x1x128xf32>, tensor<16x?x32x1xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %c7 = arith.constant 7 : index
      %ok = arith.cmpi uge, %ki, %c7 : index
      attn.yield %ok : i1
    }
  // CHECK: attn.attention_combine %[[PO]], %[[PL]] {block_size = 256 : i64} : tensor<16x?x32x1x128xf32>, tensor<16x?x32x1xf32> -> tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>
  %o, %l = attn.attention_combine %po, %pl {block_size = 256}
      : tensor<16x?x32x1x128xf32>, tensor<16x?x32x1xf32>
      -> tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>
  return %o, %l : tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>
}

// CHECK-LABEL: func @attention_window(
func.func @attention_window(%q: tensor<1x4x64x32xf16>, %k: tensor<1x4x64x32xf16>,
                            %v: tensor<1x4x64x32xf16>)
    -> (tensor<1x4x64x32xf16>, tensor<1x4x64xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {window_left = 128 : i64, window_right = 0 : i64} :
  %out, %lse = attn.attention %q, %k, %v {window_left = 128, window_right = 0}
      : tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>
      -> tensor<1x4x64x32xf16>, tensor<1x4x64xf32>
  return %out, %lse : tensor<1x4x64x32xf16>, tensor<1x4x64xf32>
}

// Causal plus a left window (local causal attention).
// CHECK-LABEL: func @attention_causal_window_left(
func.func @attention_causal_window_left(%q: tensor<1x4x64x32xf16>, %k: tensor<1x4x64x32xf16>,
                                        %v: tensor<1x4x64x32xf16>)
    -> (tensor<1x4x64x32xf16>, tensor<1x4x64xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {causal, window_left = 16 : i64} :
  %out, %lse = attn.attention %q, %k, %v {window_left = 16, causal}
      : tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>
      -> tensor<1x4x64x32xf16>, tensor<1x4x64xf32>
  return %out, %lse : tensor<1x4x64x32xf16>, tensor<1x4x64xf32>
}

// An explicit softmax scale.
// CHECK-LABEL: func @attention_explicit_scale(
func.func @attention_explicit_scale(%q: tensor<1x4x64x32xf32>, %k: tensor<1x4x64x32xf32>,
                                    %v: tensor<1x4x64x32xf32>)
    -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {scale = 1.250000e-01 : f32} :
  %out, %lse = attn.attention %q, %k, %v {scale = 0.125 : f32}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return %out, %lse : tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
}

// A negative scale is finite and non-zero, hence valid.
// CHECK-LABEL: func @attention_negative_scale(
func.func @attention_negative_scale(%q: tensor<1x4x64x32xf32>, %k: tensor<1x4x64x32xf32>,
                                    %v: tensor<1x4x64x32xf32>)
    -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {scale = -5.000000e-01 : f32} :
  %out, %lse = attn.attention %q, %k, %v {scale = -0.5 : f32}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return %out, %lse : tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
}

// Grouped-query attention: 16 query heads over 4 key/value heads (4:1).
// CHECK-LABEL: func @attention_gqa_4_to_1(
func.func @attention_gqa_4_to_1(%q: tensor<?x16x?x128xbf16>, %k: tensor<?x4x?x128xbf16>,
                                %v: tensor<?x4x?x128xbf16>)
    -> (tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {causal} :
  // CHECK-SAME: tensor<?x16x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16> -> tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>{{$}}
  %out, %lse = attn.attention %q, %k, %v {causal}
      : tensor<?x16x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>
      -> tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>
  return %out, %lse : tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>
}

// Multi-query attention: one key/value head (Hkv = 1).
// CHECK-LABEL: func @attention_mqa(
func.func @attention_mqa(%q: tensor<2x32x1x128xf16>, %k: tensor<2x1x4096x128xf16>,
                         %v: tensor<2x1x4096x128xf16>)
    -> (tensor<2x32x1x128xf16>, tensor<2x32x1xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} :
  // CHECK-SAME: tensor<2x32x1x128xf16>, tensor<2x1x4096x128xf16>, tensor<2x1x4096x128xf16> -> tensor<2x32x1x128xf16>, tensor<2x32x1xf32>{{$}}
  %out, %lse = attn.attention %q, %k, %v
      : tensor<2x32x1x128xf16>, tensor<2x1x4096x128xf16>, tensor<2x1x4096x128xf16>
      -> tensor<2x32x1x128xf16>, tensor<2x32x1xf32>
  return %out, %lse : tensor<2x32x1x128xf16>, tensor<2x32x1xf32>
}

// Mixed static/dynamic dims that are compatible: static q batch against a
// dynamic k batch, dynamic k seq against a static v seq.
// CHECK-LABEL: func @attention_mixed_static_dynamic(
func.func @attention_mixed_static_dynamic(%q: tensor<2x8x?x64xf32>, %k: tensor<?x8x?x64xf32>,
                                          %v: tensor<2x8x100x16xf32>)
    -> (tensor<2x8x?x16xf32>, tensor<2x8x?xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} :
  // CHECK-SAME: tensor<2x8x?x64xf32>, tensor<?x8x?x64xf32>, tensor<2x8x100x16xf32> -> tensor<2x8x?x16xf32>, tensor<2x8x?xf32>{{$}}
  %out, %lse = attn.attention %q, %k, %v
      : tensor<2x8x?x64xf32>, tensor<?x8x?x64xf32>, tensor<2x8x100x16xf32>
      -> tensor<2x8x?x16xf32>, tensor<2x8x?xf32>
  return %out, %lse : tensor<2x8x?x16xf32>, tensor<2x8x?xf32>
}

// The largest head dim (1024) and the largest static extent (2^31 - 1).
// CHECK-LABEL: func @attention_limits(
func.func @attention_limits(%q: tensor<1x1x2147483647x1024xf32>, %k: tensor<1x1x1x1024xf32>,
                            %v: tensor<1x1x1x1024xf32>)
    -> (tensor<1x1x2147483647x1024xf32>, tensor<1x1x2147483647xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} :
  // CHECK-SAME: tensor<1x1x2147483647x1024xf32>, tensor<1x1x1x1024xf32>, tensor<1x1x1x1024xf32> -> tensor<1x1x2147483647x1024xf32>, tensor<1x1x2147483647xf32>{{$}}
  %out, %lse = attn.attention %q, %k, %v
      : tensor<1x1x2147483647x1024xf32>, tensor<1x1x1x1024xf32>, tensor<1x1x1x1024xf32>
      -> tensor<1x1x2147483647x1024xf32>, tensor<1x1x2147483647xf32>
  return %out, %lse : tensor<1x1x2147483647x1024xf32>, tensor<1x1x2147483647xf32>
}

// Pinned tile sizes, at both bounds of #attn.tiles.
// CHECK-LABEL: func @attention_tiles(
func.func @attention_tiles(%q: tensor<1x4x64x32xf32>, %k: tensor<1x4x64x32xf32>,
                           %v: tensor<1x4x64x32xf32>)
    -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {causal, tiles = #attn.tiles<block_m = 256, block_n = 1>} :
  %out, %lse = attn.attention %q, %k, %v {causal, tiles = #attn.tiles<block_m = 256, block_n = 1>}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return %out, %lse : tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
}

// The tensor-core kind of #attn.tiles, each kind at tiles and head dims it
// accepts: `none` (the scalar kernel, any element type, here f32),
// `mma_sync` (multiples of 16; head dim 16), `wgmma` (64 to 192 rows by 64
// or 128 keys; head dims multiples of 16 up to 256).
// CHECK-LABEL: func @attention_tiles_mma(
func.func @attention_tiles_mma(%f: tensor<1x4x64x32xf32>, %s: tensor<1x4x64x16xf16>,
                               %w: tensor<1x4x64x256xbf16>, %w64: tensor<1x4x64x64xbf16>)
    -> (tensor<1x4x64x32xf32>, tensor<1x4x64x16xf16>, tensor<1x4x64x256xbf16>, tensor<1x4x64x64xbf16>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {tiles = #attn.tiles<block_m = 1, block_n = 3, mma = none>} : tensor<1x4x64x32xf32>,
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {causal, tiles = #attn.tiles<block_m = 16, block_n = 256, mma = mma_sync>} : tensor<1x4x64x16xf16>,
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {tiles = #attn.tiles<block_m = 192, block_n = 64, mma = wgmma>} : tensor<1x4x64x256xbf16>,
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {tiles = #attn.tiles<block_m = 64, block_n = 128, mma = wgmma>} : tensor<1x4x64x64xbf16>,
  %o0, %l0 = attn.attention %f, %f, %f {tiles = #attn.tiles<block_m = 1, block_n = 3, mma = none>}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  %o1, %l1 = attn.attention %s, %s, %s {causal, tiles = #attn.tiles<block_m = 16, block_n = 256, mma = mma_sync>}
      : tensor<1x4x64x16xf16>, tensor<1x4x64x16xf16>, tensor<1x4x64x16xf16>
      -> tensor<1x4x64x16xf16>, tensor<1x4x64xf32>
  %o2, %l2 = attn.attention %w, %w, %w {tiles = #attn.tiles<block_m = 192, block_n = 64, mma = wgmma>}
      : tensor<1x4x64x256xbf16>, tensor<1x4x64x256xbf16>, tensor<1x4x64x256xbf16>
      -> tensor<1x4x64x256xbf16>, tensor<1x4x64xf32>
  %o3, %l3 = attn.attention %w64, %w64, %w64 {tiles = #attn.tiles<block_m = 64, block_n = 128, mma = wgmma>}
      : tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>
      -> tensor<1x4x64x64xbf16>, tensor<1x4x64xf32>
  return %o0, %o1, %o2, %o3 : tensor<1x4x64x32xf32>, tensor<1x4x64x16xf16>, tensor<1x4x64x256xbf16>, tensor<1x4x64x64xbf16>
}

//===----------------------------------------------------------------------===//
// attn.attention: mask and score regions
//===----------------------------------------------------------------------===//

// Prefix-LM mask: keys in the first 64 positions are visible to every query,
// the rest causally.
// CHECK-LABEL: func @attention_mask_prefix_lm(
func.func @attention_mask_prefix_lm(%q: tensor<1x4x256x64xf16>, %k: tensor<1x4x256x64xf16>,
                                    %v: tensor<1x4x256x64xf16>)
    -> (tensor<1x4x256x64xf16>, tensor<1x4x256xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} :
  // CHECK-SAME: -> tensor<1x4x256x64xf16>, tensor<1x4x256xf32> mask {
  // CHECK-NEXT: ^bb0(%[[B:.*]]: index, %[[H:.*]]: index, %[[QI:.*]]: index, %[[KI:.*]]: index):
  // CHECK-NEXT:   %[[PREFIX:.*]] = arith.constant 64 : index
  // CHECK-NEXT:   %[[IN_PREFIX:.*]] = arith.cmpi ult, %[[KI]], %[[PREFIX]] : index
  // CHECK-NEXT:   %[[CAUSAL:.*]] = arith.cmpi ule, %[[KI]], %[[QI]] : index
  // CHECK-NEXT:   %[[ALLOWED:.*]] = arith.ori %[[IN_PREFIX]], %[[CAUSAL]] : i1
  // CHECK-NEXT:   attn.yield %[[ALLOWED]] : i1
  // CHECK-NEXT: }{{$}}
  // CHECK-NEXT: return
  %out, %lse = attn.attention %q, %k, %v
      : tensor<1x4x256x64xf16>, tensor<1x4x256x64xf16>, tensor<1x4x256x64xf16>
      -> tensor<1x4x256x64xf16>, tensor<1x4x256xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %prefix = arith.constant 64 : index
      %in_prefix = arith.cmpi ult, %ki, %prefix : index
      %causal = arith.cmpi ule, %ki, %qi : index
      %allowed = arith.ori %in_prefix, %causal : i1
      attn.yield %allowed : i1
    }
  return %out, %lse : tensor<1x4x256x64xf16>, tensor<1x4x256xf32>
}

// Document mask: a query sees only keys of its own 256-token document.
// CHECK-LABEL: func @attention_mask_document(
func.func @attention_mask_document(%q: tensor<1x4x1024x64xbf16>, %k: tensor<1x4x1024x64xbf16>,
                                   %v: tensor<1x4x1024x64xbf16>)
    -> (tensor<1x4x1024x64xbf16>, tensor<1x4x1024xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {causal} :
  // CHECK-SAME: mask {
  // CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index, %[[QI:.*]]: index, %[[KI:.*]]: index):
  // CHECK-NEXT:   %[[DOC:.*]] = arith.constant 256 : index
  // CHECK-NEXT:   %[[QDOC:.*]] = arith.divui %[[QI]], %[[DOC]] : index
  // CHECK-NEXT:   %[[KDOC:.*]] = arith.divui %[[KI]], %[[DOC]] : index
  // CHECK-NEXT:   %[[SAME:.*]] = arith.cmpi eq, %[[QDOC]], %[[KDOC]] : index
  // CHECK-NEXT:   attn.yield %[[SAME]] : i1
  // CHECK-NEXT: }{{$}}
  %out, %lse = attn.attention %q, %k, %v {causal}
      : tensor<1x4x1024x64xbf16>, tensor<1x4x1024x64xbf16>, tensor<1x4x1024x64xbf16>
      -> tensor<1x4x1024x64xbf16>, tensor<1x4x1024xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %doc = arith.constant 256 : index
      %qdoc = arith.divui %qi, %doc : index
      %kdoc = arith.divui %ki, %doc : index
      %same = arith.cmpi eq, %qdoc, %kdoc : index
      attn.yield %same : i1
    }
  return %out, %lse : tensor<1x4x1024x64xbf16>, tensor<1x4x1024xf32>
}

// ALiBi score bias: s - slope * (q_idx - k_idx).
// CHECK-LABEL: func @attention_score_alibi(
func.func @attention_score_alibi(%q: tensor<?x16x?x128xbf16>, %k: tensor<?x4x?x128xbf16>,
                                 %v: tensor<?x4x?x128xbf16>)
    -> (tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {causal} :
  // CHECK-SAME: -> tensor<?x16x?x128xbf16>, tensor<?x16x?xf32> score {
  // CHECK-NEXT: ^bb0(%[[S:.*]]: f32, %{{.*}}: index, %{{.*}}: index, %[[QI:.*]]: index, %[[KI:.*]]: index):
  // CHECK-NEXT:   %[[D:.*]] = arith.subi %[[QI]], %[[KI]] : index
  // CHECK-NEXT:   %[[DI:.*]] = arith.index_cast %[[D]] : index to i64
  // CHECK-NEXT:   %[[DF:.*]] = arith.sitofp %[[DI]] : i64 to f32
  // CHECK-NEXT:   %[[SLOPE:.*]] = arith.constant 6.250000e-02 : f32
  // CHECK-NEXT:   %[[BIAS:.*]] = arith.mulf %[[DF]], %[[SLOPE]] : f32
  // CHECK-NEXT:   %[[R:.*]] = arith.subf %[[S]], %[[BIAS]] : f32
  // CHECK-NEXT:   attn.yield %[[R]] : f32
  // CHECK-NEXT: }{{$}}
  %out, %lse = attn.attention %q, %k, %v {causal}
      : tensor<?x16x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>
      -> tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %d = arith.subi %qi, %ki : index
      %di = arith.index_cast %d : index to i64
      %df = arith.sitofp %di : i64 to f32
      %slope = arith.constant 0.0625 : f32
      %bias = arith.mulf %df, %slope : f32
      %r = arith.subf %s, %bias : f32
      attn.yield %r : f32
    }
  return %out, %lse : tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>
}

// Logit soft-capping: cap * tanh(s / cap).
// CHECK-LABEL: func @attention_score_softcap(
func.func @attention_score_softcap(%q: tensor<1x8x128x64xf32>, %k: tensor<1x8x128x64xf32>,
                                   %v: tensor<1x8x128x64xf32>)
    -> (tensor<1x8x128x64xf32>, tensor<1x8x128xf32>) {
  // CHECK: attn.attention
  // CHECK-SAME: score {
  // CHECK-NEXT: ^bb0(%[[S:.*]]: f32, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index):
  // CHECK-NEXT:   %[[CAP:.*]] = arith.constant 5.000000e+01 : f32
  // CHECK-NEXT:   %[[X:.*]] = arith.divf %[[S]], %[[CAP]] : f32
  // CHECK-NEXT:   %[[T:.*]] = math.tanh %[[X]] : f32
  // CHECK-NEXT:   %[[R:.*]] = arith.mulf %[[T]], %[[CAP]] : f32
  // CHECK-NEXT:   attn.yield %[[R]] : f32
  // CHECK-NEXT: }{{$}}
  %out, %lse = attn.attention %q, %k, %v
      : tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>
      -> tensor<1x8x128x64xf32>, tensor<1x8x128xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %cap = arith.constant 50.0 : f32
      %x = arith.divf %s, %cap : f32
      %t = math.tanh %x : f32
      %r = arith.mulf %t, %cap : f32
      attn.yield %r : f32
    }
  return %out, %lse : tensor<1x8x128x64xf32>, tensor<1x8x128xf32>
}

// Both regions together with every attribute; the mask region is printed
// before the score region.
// CHECK-LABEL: func @attention_mask_and_score(
func.func @attention_mask_and_score(%q: tensor<?x8x?x64xf16>, %k: tensor<?x2x?x64xf16>,
                                    %v: tensor<?x2x?x32xf16>)
    -> (tensor<?x8x?x32xf16>, tensor<?x8x?xf32>) {
  // CHECK: attn.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {causal, scale = 1.250000e-01 : f32, window_left = 512 : i64, window_right = 0 : i64} :
  // CHECK-SAME: tensor<?x8x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x32xf16> -> tensor<?x8x?x32xf16>, tensor<?x8x?xf32> mask {
  // CHECK-NEXT: ^bb0(%[[B:.*]]: index, %[[H:.*]]: index, %{{.*}}: index, %{{.*}}: index):
  // CHECK-NEXT:   %[[C0:.*]] = arith.constant 0 : index
  // CHECK-NEXT:   %[[NE:.*]] = arith.cmpi ne, %[[H]], %[[C0]] : index
  // CHECK-NEXT:   attn.yield %[[NE]] : i1
  // CHECK-NEXT: } score {
  // CHECK-NEXT: ^bb0(%[[S:.*]]: f32, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index):
  // CHECK-NEXT:   %[[T:.*]] = math.tanh %[[S]] : f32
  // CHECK-NEXT:   attn.yield %[[T]] : f32
  // CHECK-NEXT: }{{$}}
  %out, %lse = attn.attention %q, %k, %v
      {causal, window_left = 512, window_right = 0, scale = 0.125 : f32}
      : tensor<?x8x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x32xf16>
      -> tensor<?x8x?x32xf16>, tensor<?x8x?xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %c0 = arith.constant 0 : index
      %ne = arith.cmpi ne, %h, %c0 : index
      attn.yield %ne : i1
    }
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %t = math.tanh %s : f32
      attn.yield %t : f32
    }
  return %out, %lse : tensor<?x8x?x32xf16>, tensor<?x8x?xf32>
}

// The identity score region and a constant-true mask are valid as written
// (canonicalization removes them, parsing alone must not).
// CHECK-LABEL: func @attention_trivial_regions(
func.func @attention_trivial_regions(%q: tensor<1x4x64x32xf32>, %k: tensor<1x4x64x32xf32>,
                                     %v: tensor<1x4x64x32xf32>)
    -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>) {
  // CHECK: attn.attention
  // CHECK-SAME: mask {
  // CHECK-NEXT: ^bb0(
  // CHECK-NEXT:   %[[TRUE:.*]] = arith.constant true
  // CHECK-NEXT:   attn.yield %[[TRUE]] : i1
  // CHECK-NEXT: } score {
  // CHECK-NEXT: ^bb0(%[[S:.*]]: f32,
  // CHECK-NEXT:   attn.yield %[[S]] : f32
  // CHECK-NEXT: }{{$}}
  %out, %lse = attn.attention %q, %k, %v
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %true = arith.constant true
      attn.yield %true : i1
    }
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      attn.yield %s : f32
    }
  return %out, %lse : tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
}

//===----------------------------------------------------------------------===//
// attn.linear_attention
//===----------------------------------------------------------------------===//

// The elu1 feature map, causal.
// CHECK-LABEL: func @linear_attention_elu1_causal(
// CHECK-SAME: %[[Q:[a-zA-Z0-9_]+]]: tensor<2x8x1024x64xf32>, %[[K:[a-zA-Z0-9_]+]]: tensor<2x8x1024x64xf32>, %[[V:[a-zA-Z0-9_]+]]: tensor<2x8x1024x64xf32>)
func.func @linear_attention_elu1_causal(%q: tensor<2x8x1024x64xf32>, %k: tensor<2x8x1024x64xf32>,
                                        %v: tensor<2x8x1024x64xf32>) -> tensor<2x8x1024x64xf32> {
  // CHECK: %[[OUT:.*]] = attn.linear_attention elu1 %[[Q]], %[[K]], %[[V]] {causal} :
  // CHECK-SAME: tensor<2x8x1024x64xf32>, tensor<2x8x1024x64xf32>, tensor<2x8x1024x64xf32> -> tensor<2x8x1024x64xf32>{{$}}
  // CHECK-NEXT: return %[[OUT]]
  %out = attn.linear_attention elu1 %q, %k, %v {causal}
      : tensor<2x8x1024x64xf32>, tensor<2x8x1024x64xf32>, tensor<2x8x1024x64xf32>
      -> tensor<2x8x1024x64xf32>
  return %out : tensor<2x8x1024x64xf32>
}

// The relu feature map, non-causal, GQA, Nq != Nk, Dv != D, bf16.
// CHECK-LABEL: func @linear_attention_relu(
func.func @linear_attention_relu(%q: tensor<1x8x100x64xbf16>, %k: tensor<1x2x300x64xbf16>,
                                 %v: tensor<1x2x300x32xbf16>) -> tensor<1x8x100x32xbf16> {
  // CHECK: attn.linear_attention relu %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} :
  // CHECK-SAME: tensor<1x8x100x64xbf16>, tensor<1x2x300x64xbf16>, tensor<1x2x300x32xbf16> -> tensor<1x8x100x32xbf16>{{$}}
  %out = attn.linear_attention relu %q, %k, %v
      : tensor<1x8x100x64xbf16>, tensor<1x2x300x64xbf16>, tensor<1x2x300x32xbf16>
      -> tensor<1x8x100x32xbf16>
  return %out : tensor<1x8x100x32xbf16>
}

// The favor feature map with its num_features and seed, f16.
// CHECK-LABEL: func @linear_attention_favor(
func.func @linear_attention_favor(%q: tensor<?x4x?x64xf16>, %k: tensor<?x4x?x64xf16>,
                                  %v: tensor<?x4x?x64xf16>) -> tensor<?x4x?x64xf16> {
  // CHECK: attn.linear_attention favor %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {num_features = 256 : i64, seed = 42 : i64} :
  // CHECK-SAME: tensor<?x4x?x64xf16>, tensor<?x4x?x64xf16>, tensor<?x4x?x64xf16> -> tensor<?x4x?x64xf16>{{$}}
  %out = attn.linear_attention favor %q, %k, %v {num_features = 256, seed = 42}
      : tensor<?x4x?x64xf16>, tensor<?x4x?x64xf16>, tensor<?x4x?x64xf16>
      -> tensor<?x4x?x64xf16>
  return %out : tensor<?x4x?x64xf16>
}

// Causal favor at the num_features bounds; dynamic seq lengths may be causal.
// CHECK-LABEL: func @linear_attention_favor_causal_bounds(
func.func @linear_attention_favor_causal_bounds(%q: tensor<1x4x?x64xf32>, %k: tensor<1x4x?x64xf32>,
                                                %v: tensor<1x4x?x64xf32>)
    -> (tensor<1x4x?x64xf32>, tensor<1x4x?x64xf32>) {
  // CHECK: attn.linear_attention favor %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {causal, num_features = 1 : i64, seed = 0 : i64} :
  // CHECK: attn.linear_attention favor %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {causal, num_features = 4096 : i64, seed = -7 : i64} :
  %a = attn.linear_attention favor %q, %k, %v {causal, num_features = 1, seed = 0}
      : tensor<1x4x?x64xf32>, tensor<1x4x?x64xf32>, tensor<1x4x?x64xf32> -> tensor<1x4x?x64xf32>
  %b = attn.linear_attention favor %q, %k, %v {causal, num_features = 4096, seed = -7}
      : tensor<1x4x?x64xf32>, tensor<1x4x?x64xf32>, tensor<1x4x?x64xf32> -> tensor<1x4x?x64xf32>
  return %a, %b : tensor<1x4x?x64xf32>, tensor<1x4x?x64xf32>
}

//===----------------------------------------------------------------------===//
// attn.cast
//===----------------------------------------------------------------------===//

// Every result element type, without a scale.
// CHECK-LABEL: func @cast_every_type(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x128xf32>
func.func @cast_every_type(%x: tensor<8x128xf32>, %h: tensor<?x64xbf16>)
    -> (tensor<8x128xf32>, tensor<8x128xf16>, tensor<8x128xbf16>,
        tensor<8x128xf8E4M3FN>, tensor<8x128xf8E5M2>, tensor<?x64xf32>) {
  // CHECK: attn.cast %[[X]] : tensor<8x128xf32> to tensor<8x128xf32>{{$}}
  // CHECK: attn.cast %[[X]] : tensor<8x128xf32> to tensor<8x128xf16>{{$}}
  // CHECK: attn.cast %[[X]] : tensor<8x128xf32> to tensor<8x128xbf16>{{$}}
  // CHECK: attn.cast %[[X]] : tensor<8x128xf32> to tensor<8x128xf8E4M3FN>{{$}}
  // CHECK: attn.cast %[[X]] : tensor<8x128xf32> to tensor<8x128xf8E5M2>{{$}}
  // CHECK: attn.cast %{{.*}} : tensor<?x64xbf16> to tensor<?x64xf32>{{$}}
  %0 = attn.cast %x : tensor<8x128xf32> to tensor<8x128xf32>
  %1 = attn.cast %x : tensor<8x128xf32> to tensor<8x128xf16>
  %2 = attn.cast %x : tensor<8x128xf32> to tensor<8x128xbf16>
  %3 = attn.cast %x : tensor<8x128xf32> to tensor<8x128xf8E4M3FN>
  %4 = attn.cast %x : tensor<8x128xf32> to tensor<8x128xf8E5M2>
  %5 = attn.cast %h : tensor<?x64xbf16> to tensor<?x64xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<8x128xf32>, tensor<8x128xf16>, tensor<8x128xbf16>,
                                  tensor<8x128xf8E4M3FN>, tensor<8x128xf8E5M2>, tensor<?x64xf32>
}

// Every result element type with a scale; other float inputs (f64, fp8) are
// accepted as well, and rank 0 is fine.
// CHECK-LABEL: func @cast_with_scale(
func.func @cast_with_scale(%x: tensor<8x128xf32>, %d: tensor<4xf64>, %e: tensor<f8E4M3FN>)
    -> (tensor<8x128xf32>, tensor<8x128xf16>, tensor<8x128xbf16>,
        tensor<8x128xf8E4M3FN>, tensor<8x128xf8E5M2>, tensor<4xf16>, tensor<f32>) {
  // CHECK: attn.cast %{{.*}} {scale = 5.000000e-01 : f32} : tensor<8x128xf32> to tensor<8x128xf32>{{$}}
  // CHECK: attn.cast %{{.*}} {scale = 1.024000e+03 : f32} : tensor<8x128xf32> to tensor<8x128xf16>{{$}}
  // CHECK: attn.cast %{{.*}} {scale = 1.024000e+03 : f32} : tensor<8x128xf32> to tensor<8x128xbf16>{{$}}
  // CHECK: attn.cast %{{.*}} {scale = 4.480000e+02 : f32} : tensor<8x128xf32> to tensor<8x128xf8E4M3FN>{{$}}
  // CHECK: attn.cast %{{.*}} {scale = -2.500000e-01 : f32} : tensor<8x128xf32> to tensor<8x128xf8E5M2>{{$}}
  // CHECK: attn.cast %{{.*}} : tensor<4xf64> to tensor<4xf16>{{$}}
  // CHECK: attn.cast %{{.*}} {scale = 2.000000e+00 : f32} : tensor<f8E4M3FN> to tensor<f32>{{$}}
  %0 = attn.cast %x {scale = 0.5 : f32} : tensor<8x128xf32> to tensor<8x128xf32>
  %1 = attn.cast %x {scale = 1024.0 : f32} : tensor<8x128xf32> to tensor<8x128xf16>
  %2 = attn.cast %x {scale = 1024.0 : f32} : tensor<8x128xf32> to tensor<8x128xbf16>
  %3 = attn.cast %x {scale = 448.0 : f32} : tensor<8x128xf32> to tensor<8x128xf8E4M3FN>
  %4 = attn.cast %x {scale = -0.25 : f32} : tensor<8x128xf32> to tensor<8x128xf8E5M2>
  %5 = attn.cast %d : tensor<4xf64> to tensor<4xf16>
  %6 = attn.cast %e {scale = 2.0 : f32} : tensor<f8E4M3FN> to tensor<f32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<8x128xf32>, tensor<8x128xf16>, tensor<8x128xbf16>,
      tensor<8x128xf8E4M3FN>, tensor<8x128xf8E5M2>, tensor<4xf16>, tensor<f32>
}

// A pinned block_size, alone and with a scale; the i64 type is printed.
// CHECK-LABEL: func @cast_block_size(
func.func @cast_block_size(%x: tensor<8x128xf32>) -> (tensor<8x128xbf16>, tensor<8x128xf16>) {
  // CHECK: attn.cast %{{.*}} {block_size = 256 : i64} : tensor<8x128xf32> to tensor<8x128xbf16>{{$}}
  // CHECK: attn.cast %{{.*}} {block_size = 1 : i64, scale = 2.000000e+00 : f32} : tensor<8x128xf32> to tensor<8x128xf16>{{$}}
  %0 = attn.cast %x {block_size = 256} : tensor<8x128xf32> to tensor<8x128xbf16>
  %1 = attn.cast %x {scale = 2.0 : f32, block_size = 1 : i64} : tensor<8x128xf32> to tensor<8x128xf16>
  return %0, %1 : tensor<8x128xbf16>, tensor<8x128xf16>
}

// Captured tensors: the regions take them after their indices and read
// them with tensor.extract; the gradient kernels carry them too.
// CHECK-LABEL: func @attention_captures(
func.func @attention_captures(%q: tensor<?x4x?x64xbf16>, %doc: tensor<?x?xi32>,
                              %bias: tensor<4x?xf32>, %lse: tensor<?x4x?xf32>,
                              %acc: tensor<?x4x?x64xf32>)
    -> (tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xf32>) {
  // CHECK: attn.attention %{{.*}}, %{{.*}}, %{{.*}} captures(%{{.*}}, %{{.*}} : tensor<?x?xi32>, tensor<4x?xf32>) {causal} :
  // CHECK: ^bb0(%{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %[[D:.*]]: tensor<?x?xi32>, %{{.*}}: tensor<4x?xf32>):
  // CHECK: tensor.extract %[[D]][%{{.*}}, %{{.*}}] : tensor<?x?xi32>
  %o, %l = attn.attention %q, %q, %q captures(%doc, %bias : tensor<?x?xi32>, tensor<4x?xf32>) {causal}
      : tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>
      -> tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %d: tensor<?x?xi32>, %t: tensor<4x?xf32>):
      %dq = tensor.extract %d[%b, %qi] : tensor<?x?xi32>
      %dk = tensor.extract %d[%b, %ki] : tensor<?x?xi32>
      %same = arith.cmpi eq, %dq, %dk : i32
      attn.yield %same : i1
    }
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %d: tensor<?x?xi32>, %t: tensor<4x?xf32>):
      %bias_hk = tensor.extract %t[%h, %ki] : tensor<4x?xf32>
      %r = arith.addf %s, %bias_hk : f32
      attn.yield %r : f32
    }
  // CHECK: attn.attention_grad_kv %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} captures(%{{.*}} : tensor<?x?xi32>) :
  %dk, %dv, %acc1 = attn.attention_grad_kv %q, %q, %q, %lse, %lse, %q, %acc captures(%doc : tensor<?x?xi32>)
      : tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>,
        tensor<?x4x?xf32>, tensor<?x4x?xf32>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xf32>
      -> tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %d: tensor<?x?xi32>):
      %dq = tensor.extract %d[%b, %qi] : tensor<?x?xi32>
      %dk = tensor.extract %d[%b, %ki] : tensor<?x?xi32>
      %same = arith.cmpi eq, %dq, %dk : i32
      attn.yield %same : i1
    }
  return %o, %dk, %acc1 : tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xf32>
}

//===----------------------------------------------------------------------===//
// attn.elementwise
//===----------------------------------------------------------------------===//

// Mixed element types and dynamic dims, a pinned block size.
// CHECK-LABEL: func @elementwise(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<?x64xf32>, %[[Y:[a-zA-Z0-9_]+]]: tensor<?x64xbf16>)
func.func @elementwise(%x: tensor<?x64xf32>, %y: tensor<?x64xbf16>) -> tensor<?x64xf16> {
  // CHECK: attn.elementwise %[[X]], %[[Y]] {block_size = 256 : i64} : tensor<?x64xf32>, tensor<?x64xbf16> -> tensor<?x64xf16> {
  // CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
  // CHECK-NEXT: %[[T:.*]] = math.tanh %[[A]] : f32
  // CHECK-NEXT: %[[M:.*]] = arith.mulf %[[T]], %[[B]] : f32
  // CHECK-NEXT: attn.yield %[[M]] : f32
  %z = attn.elementwise %x, %y {block_size = 256 : i64}
      : tensor<?x64xf32>, tensor<?x64xbf16> -> tensor<?x64xf16> {
  ^bb0(%a: f32, %b: f32):
    %t = math.tanh %a : f32
    %m = arith.mulf %t, %b : f32
    attn.yield %m : f32
  }
  return %z : tensor<?x64xf16>
}

// Two results from one pass over the inputs.
// CHECK-LABEL: func @elementwise_two_results(
// CHECK: %{{.*}}:2 = attn.elementwise %{{.*}} : tensor<8xbf16> -> tensor<8xf32>, tensor<8xbf16> {
// CHECK: attn.yield %{{.*}}, %{{.*}} : f32, f32
func.func @elementwise_two_results(%x: tensor<8xbf16>) -> (tensor<8xf32>, tensor<8xbf16>) {
  %a, %b = attn.elementwise %x : tensor<8xbf16> -> tensor<8xf32>, tensor<8xbf16> {
  ^bb0(%v: f32):
    %e = math.exp %v : f32
    attn.yield %e, %v : f32, f32
  }
  return %a, %b : tensor<8xf32>, tensor<8xbf16>
}

// A linear layer in nn.Linear's weight layout, and its weight's gradient.
// CHECK-LABEL: func @matmul(
// CHECK: attn.matmul %{{.*}}, %{{.*}} {transpose_b} : tensor<?x?x64xbf16>, tensor<96x64xbf16> -> tensor<?x?x96xbf16>
// CHECK: attn.matmul %{{.*}}, %{{.*}} {transpose_a} : tensor<?x?x96xbf16>, tensor<?x?x64xbf16> -> tensor<96x64xf32>
// CHECK: attn.matmul %{{.*}}, %{{.*}} {library = "cublaslt"} : tensor<8x64xf32>, tensor<64x96xf32> -> tensor<8x96xf32>
func.func @matmul(%x: tensor<?x?x64xbf16>, %w: tensor<96x64xbf16>,
                  %a: tensor<8x64xf32>, %b: tensor<64x96xf32>)
    -> (tensor<?x?x96xbf16>, tensor<96x64xf32>, tensor<8x96xf32>) {
  %y = attn.matmul %x, %w {transpose_b}
      : tensor<?x?x64xbf16>, tensor<96x64xbf16> -> tensor<?x?x96xbf16>
  %dw = attn.matmul %y, %x {transpose_a}
      : tensor<?x?x96xbf16>, tensor<?x?x64xbf16> -> tensor<96x64xf32>
  %c = attn.matmul %a, %b {library = "cublaslt"}
      : tensor<8x64xf32>, tensor<64x96xf32> -> tensor<8x96xf32>
  return %y, %dw, %c : tensor<?x?x96xbf16>, tensor<96x64xf32>, tensor<8x96xf32>
}

// RMSNorm, its gradient kernel and the row sum that finishes the weight's
// gradient.
// CHECK-LABEL: func @rms_norm(
// CHECK: attn.rms_norm %{{.*}}, %{{.*}} {epsilon = 9.99999997E-7 : f32} : tensor<?x?x64xbf16>, tensor<64xbf16> -> tensor<?x?x64xbf16>, tensor<?x?xf32>
// CHECK: attn.rms_norm_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<?x?x64xbf16>, tensor<64xbf16>, tensor<?x?xf32>, tensor<?x?x64xbf16> -> tensor<?x?x64xbf16>, tensor<16x64xf32>
// CHECK: attn.sum_rows %{{.*}} {block_size = 256 : i64} : tensor<16x64xf32> -> tensor<64xbf16>
func.func @rms_norm(%x: tensor<?x?x64xbf16>, %w: tensor<64xbf16>, %dy: tensor<?x?x64xbf16>)
    -> (tensor<?x?x64xbf16>, tensor<?x?x64xbf16>, tensor<64xbf16>) {
  %y, %rstd = attn.rms_norm %x, %w {epsilon = 1.0e-06 : f32}
      : tensor<?x?x64xbf16>, tensor<64xbf16> -> tensor<?x?x64xbf16>, tensor<?x?xf32>
  %dx, %dwp = attn.rms_norm_grad %x, %w, %rstd, %dy
      : tensor<?x?x64xbf16>, tensor<64xbf16>, tensor<?x?xf32>, tensor<?x?x64xbf16>
      -> tensor<?x?x64xbf16>, tensor<16x64xf32>
  %dw = attn.sum_rows %dwp {block_size = 256 : i64} : tensor<16x64xf32> -> tensor<64xbf16>
  return %y, %dx, %dw : tensor<?x?x64xbf16>, tensor<?x?x64xbf16>, tensor<64xbf16>
}

// A squared norm: column sums of squares, then the sum of all of them; and a rank-0
// input broadcast into an element kernel.
// CHECK-LABEL: func @squared_norm(
// CHECK: attn.sum_rows %{{.*}} {squares} : tensor<16x64xf32> -> tensor<64xf32>
// CHECK: attn.sum_rows %{{.*}} : tensor<64xf32> -> tensor<f32>
// CHECK: attn.elementwise %{{.*}}, %{{.*}} : tensor<16x64xf32>, tensor<f32> -> tensor<16x64xf32>
func.func @squared_norm(%g: tensor<16x64xf32>) -> (tensor<f32>, tensor<16x64xf32>) {
  %columns = attn.sum_rows %g {squares} : tensor<16x64xf32> -> tensor<64xf32>
  %total = attn.sum_rows %columns : tensor<64xf32> -> tensor<f32>
  %scaled = attn.elementwise %g, %total : tensor<16x64xf32>, tensor<f32> -> tensor<16x64xf32> {
  ^bb0(%a: f32, %t: f32):
    %p = arith.divf %a, %t : f32
    attn.yield %p : f32
  }
  return %total, %scaled : tensor<f32>, tensor<16x64xf32>
}

// Norm gradients with an addend on dx.
// CHECK-LABEL: func @norm_grad_addend(
// CHECK: attn.rms_norm_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} + %{{.*}} : tensor<?x64xbf16>, tensor<64xbf16>, tensor<?xf32>, tensor<?x64xbf16> + tensor<?x64xbf16> -> tensor<?x64xbf16>, tensor<16x64xf32>
// CHECK: attn.layer_norm_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} + %{{.*}} : tensor<?x64xbf16>, tensor<64xbf16>, tensor<?xf32>, tensor<?x64xbf16> + tensor<?x64xbf16> -> tensor<?x64xbf16>, tensor<16x64xf32>
func.func @norm_grad_addend(%x: tensor<?x64xbf16>, %w: tensor<64xbf16>,
                            %rstd: tensor<?xf32>, %dy: tensor<?x64xbf16>,
                            %dres: tensor<?x64xbf16>)
    -> (tensor<?x64xbf16>, tensor<?x64xbf16>) {
  %dx, %dwp = attn.rms_norm_grad %x, %w, %rstd, %dy + %dres
      : tensor<?x64xbf16>, tensor<64xbf16>, tensor<?xf32>, tensor<?x64xbf16> + tensor<?x64xbf16>
      -> tensor<?x64xbf16>, tensor<16x64xf32>
  %dl, %dlp = attn.layer_norm_grad %x, %w, %rstd, %dy + %dres
      : tensor<?x64xbf16>, tensor<64xbf16>, tensor<?xf32>, tensor<?x64xbf16> + tensor<?x64xbf16>
      -> tensor<?x64xbf16>, tensor<16x64xf32>
  return %dx, %dl : tensor<?x64xbf16>, tensor<?x64xbf16>
}

// A linear layer with a bias.
// CHECK-LABEL: func @matmul_bias(
// CHECK: attn.matmul %{{.*}}, %{{.*}}, %{{.*}} {transpose_b} : tensor<?x?x64xbf16>, tensor<96x64xbf16>, tensor<96xbf16> -> tensor<?x?x96xbf16>
func.func @matmul_bias(%x: tensor<?x?x64xbf16>, %w: tensor<96x64xbf16>,
                       %b: tensor<96xbf16>) -> tensor<?x?x96xbf16> {
  %y = attn.matmul %x, %w, %b {transpose_b}
      : tensor<?x?x64xbf16>, tensor<96x64xbf16>, tensor<96xbf16> -> tensor<?x?x96xbf16>
  return %y : tensor<?x?x96xbf16>
}

// Linear layers with an addend in the epilogue, with and without a bias,
// and a row contraction with one.
// CHECK-LABEL: func @matmul_addend(
// CHECK: attn.matmul %{{.*}}, %{{.*}} + %{{.*}} {transpose_b} : tensor<?x?x64xbf16>, tensor<96x64xbf16> + tensor<?x?x96xbf16> -> tensor<?x?x96xbf16>
// CHECK: attn.matmul %{{.*}}, %{{.*}}, %{{.*}} + %{{.*}} {transpose_b} : tensor<?x?x64xbf16>, tensor<96x64xbf16>, tensor<96xbf16> + tensor<?x?x96xbf16> -> tensor<?x?x96xbf16>
// CHECK: attn.matmul %{{.*}}, %{{.*}} + %{{.*}} {transpose_a} : tensor<?x?x96xbf16>, tensor<?x?x64xbf16> + tensor<96x64xf32> -> tensor<96x64xf32>
func.func @matmul_addend(%x: tensor<?x?x64xbf16>, %w: tensor<96x64xbf16>,
                         %b: tensor<96xbf16>, %r: tensor<?x?x96xbf16>,
                         %acc: tensor<96x64xf32>)
    -> (tensor<?x?x96xbf16>, tensor<?x?x96xbf16>, tensor<96x64xf32>) {
  %y = attn.matmul %x, %w + %r {transpose_b}
      : tensor<?x?x64xbf16>, tensor<96x64xbf16> + tensor<?x?x96xbf16> -> tensor<?x?x96xbf16>
  %z = attn.matmul %x, %w, %b + %y {transpose_b}
      : tensor<?x?x64xbf16>, tensor<96x64xbf16>, tensor<96xbf16> + tensor<?x?x96xbf16> -> tensor<?x?x96xbf16>
  %dw = attn.matmul %z, %x + %acc {transpose_a}
      : tensor<?x?x96xbf16>, tensor<?x?x64xbf16> + tensor<96x64xf32> -> tensor<96x64xf32>
  return %y, %z, %dw : tensor<?x?x96xbf16>, tensor<?x?x96xbf16>, tensor<96x64xf32>
}

// A linear layer with GELU in the epilogue, with and without a bias.
// CHECK-LABEL: func @matmul_activation(
// CHECK: attn.matmul %{{.*}}, %{{.*}}, %{{.*}} {activation = "gelu_tanh", transpose_b} : tensor<?x?x64xbf16>, tensor<96x64xbf16>, tensor<96xbf16> -> tensor<?x?x96xbf16>
// CHECK: attn.matmul %{{.*}}, %{{.*}} {activation = "gelu_tanh"} : tensor<?x?x96xbf16>, tensor<96x64xbf16> -> tensor<?x?x64xbf16>
func.func @matmul_activation(%x: tensor<?x?x64xbf16>, %w: tensor<96x64xbf16>,
                             %b: tensor<96xbf16>) -> tensor<?x?x64xbf16> {
  %y = attn.matmul %x, %w, %b {activation = "gelu_tanh", transpose_b}
      : tensor<?x?x64xbf16>, tensor<96x64xbf16>, tensor<96xbf16> -> tensor<?x?x96xbf16>
  %z = attn.matmul %y, %w {activation = "gelu_tanh"}
      : tensor<?x?x96xbf16>, tensor<96x64xbf16> -> tensor<?x?x64xbf16>
  return %z : tensor<?x?x64xbf16>
}

// LayerNorm with and without a bias, and its gradient kernel.
// CHECK-LABEL: func @layer_norm(
// CHECK: attn.layer_norm %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 9.99999974E-6 : f32} : tensor<?x?x64xbf16>, tensor<64xbf16>, tensor<64xbf16> -> tensor<?x?x64xbf16>, tensor<?x?xf32>
// CHECK: attn.layer_norm %{{.*}}, %{{.*}} {epsilon = 9.99999974E-6 : f32} : tensor<?x?x64xbf16>, tensor<64xbf16> -> tensor<?x?x64xbf16>, tensor<?x?xf32>
// CHECK: attn.layer_norm_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<?x?x64xbf16>, tensor<64xbf16>, tensor<?x?xf32>, tensor<?x?x64xbf16> -> tensor<?x?x64xbf16>, tensor<16x64xf32>
func.func @layer_norm(%x: tensor<?x?x64xbf16>, %w: tensor<64xbf16>, %b: tensor<64xbf16>,
                      %dy: tensor<?x?x64xbf16>)
    -> (tensor<?x?x64xbf16>, tensor<?x?x64xbf16>, tensor<?x?x64xbf16>, tensor<16x64xf32>) {
  %y, %rstd = attn.layer_norm %x, %w, %b {epsilon = 1.0e-05 : f32}
      : tensor<?x?x64xbf16>, tensor<64xbf16>, tensor<64xbf16> -> tensor<?x?x64xbf16>, tensor<?x?xf32>
  %z, %zr = attn.layer_norm %x, %w {epsilon = 1.0e-05 : f32}
      : tensor<?x?x64xbf16>, tensor<64xbf16> -> tensor<?x?x64xbf16>, tensor<?x?xf32>
  %dx, %dwp = attn.layer_norm_grad %x, %w, %rstd, %dy
      : tensor<?x?x64xbf16>, tensor<64xbf16>, tensor<?x?xf32>, tensor<?x?x64xbf16>
      -> tensor<?x?x64xbf16>, tensor<16x64xf32>
  return %y, %z, %dx, %dwp : tensor<?x?x64xbf16>, tensor<?x?x64xbf16>, tensor<?x?x64xbf16>, tensor<16x64xf32>
}

// Token embedding and its table's gradient.
// CHECK-LABEL: func @embedding(
// CHECK: attn.embedding %{{.*}}, %{{.*}} : tensor<96x64xbf16>, tensor<?x?xi32> -> tensor<?x?x64xbf16>
// CHECK: %[[O:.*]], %[[B:.*]] = attn.token_order %{{.*}} : tensor<?x?xi32> -> tensor<?x?xi32>, tensor<97xi32>
// CHECK: attn.embedding_grad %[[O]], %[[B]], %{{.*}} : tensor<?x?xi32>, tensor<97xi32>, tensor<?x?x64xbf16> -> tensor<96x64xf32>
func.func @embedding(%table: tensor<96x64xbf16>, %ids: tensor<?x?xi32>)
    -> (tensor<?x?x64xbf16>, tensor<96x64xf32>) {
  %x = attn.embedding %table, %ids
      : tensor<96x64xbf16>, tensor<?x?xi32> -> tensor<?x?x64xbf16>
  %order, %bounds = attn.token_order %ids
      : tensor<?x?xi32> -> tensor<?x?xi32>, tensor<97xi32>
  %dt = attn.embedding_grad %order, %bounds, %x
      : tensor<?x?xi32>, tensor<97xi32>, tensor<?x?x64xbf16> -> tensor<96x64xf32>
  return %x, %dt : tensor<?x?x64xbf16>, tensor<96x64xf32>
}

// Cross-entropy of logits against labels, the mean over counted tokens,
// and their gradient kernels.
// CHECK-LABEL: func @loss(
// CHECK: attn.cross_entropy %{{.*}}, %{{.*}} {ignore_index = -100 : i64} : tensor<?x?x96xbf16>, tensor<?x?xi32> -> tensor<?x?xf32>, tensor<?x?xf32>
// CHECK: attn.token_mean %{{.*}}, %{{.*}} {ignore_index = -100 : i64} : tensor<?x?xf32>, tensor<?x?xi32> -> tensor<f32>
// CHECK: attn.token_mean_grad %{{.*}}, %{{.*}} {ignore_index = -100 : i64} : tensor<?x?xi32>, tensor<f32> -> tensor<?x?xf32>
// CHECK: attn.cross_entropy_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {ignore_index = -100 : i64} : tensor<?x?x96xbf16>, tensor<?x?xi32>, tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?x96xbf16>
func.func @loss(%logits: tensor<?x?x96xbf16>, %labels: tensor<?x?xi32>, %dl: tensor<f32>)
    -> (tensor<f32>, tensor<?x?x96xbf16>) {
  %losses, %lse = attn.cross_entropy %logits, %labels {ignore_index = -100 : i64}
      : tensor<?x?x96xbf16>, tensor<?x?xi32> -> tensor<?x?xf32>, tensor<?x?xf32>
  %mean = attn.token_mean %losses, %labels {ignore_index = -100 : i64}
      : tensor<?x?xf32>, tensor<?x?xi32> -> tensor<f32>
  %dlosses = attn.token_mean_grad %labels, %dl {ignore_index = -100 : i64}
      : tensor<?x?xi32>, tensor<f32> -> tensor<?x?xf32>
  %dlogits = attn.cross_entropy_grad %logits, %labels, %lse, %dlosses {ignore_index = -100 : i64}
      : tensor<?x?x96xbf16>, tensor<?x?xi32>, tensor<?x?xf32>, tensor<?x?xf32>
      -> tensor<?x?x96xbf16>
  return %mean, %dlogits : tensor<f32>, tensor<?x?x96xbf16>
}

// A projection's heads into attention's layout, rotating q, and back.
// CHECK-LABEL: func @heads(
// CHECK: attn.split_heads %{{.*}}, %{{.*}}, %{{.*}} : tensor<?x?x256xbf16>, tensor<?x16xf32>, tensor<?x16xf32> -> tensor<?x8x?x32xbf16>
// CHECK: attn.split_heads %{{.*}} : tensor<?x?x256xbf16> -> tensor<?x8x?x32xbf16>
// CHECK: attn.merge_heads %{{.*}} {block_size = 1024 : i64} : tensor<?x8x?x32xbf16> -> tensor<?x?x256xbf16>
func.func @heads(%x: tensor<?x?x256xbf16>, %cos: tensor<?x16xf32>, %sin: tensor<?x16xf32>)
    -> (tensor<?x8x?x32xbf16>, tensor<?x?x256xbf16>) {
  %q = attn.split_heads %x, %cos, %sin
      : tensor<?x?x256xbf16>, tensor<?x16xf32>, tensor<?x16xf32> -> tensor<?x8x?x32xbf16>
  %v = attn.split_heads %x : tensor<?x?x256xbf16> -> tensor<?x8x?x32xbf16>
  %m = attn.merge_heads %v {block_size = 1024 : i64} : tensor<?x8x?x32xbf16> -> tensor<?x?x256xbf16>
  return %q, %m : tensor<?x8x?x32xbf16>, tensor<?x?x256xbf16>
}

// The fused LM-head loss, its gradient, and the kernels of its chunks.
// CHECK-LABEL: func.func @linear_loss(
func.func @linear_loss(%h: tensor<?x32xbf16>, %e: tensor<24x32xbf16>, %y: tensor<?xi32>, %d: tensor<?xf32>) -> (tensor<?xf32>, tensor<?x32xbf16>, tensor<24x32xbf16>, tensor<?xf32>, tensor<?x24xbf16>) {
  // CHECK: attn.linear_cross_entropy %{{.*}}, %{{.*}}, %{{.*}} {ignore_index = -100 : i64} : tensor<?x32xbf16>, tensor<24x32xbf16>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  %l, %s = attn.linear_cross_entropy %h, %e, %y {ignore_index = -100 : i64} : tensor<?x32xbf16>, tensor<24x32xbf16>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  // CHECK: attn.linear_cross_entropy_grad %{{.*}} : tensor<?x32xbf16>, tensor<24x32xbf16>, tensor<?xi32>, tensor<?xf32>, tensor<?xf32> -> tensor<?x32xbf16>, tensor<24x32xbf16>
  %dh, %de = attn.linear_cross_entropy_grad %h, %e, %y, %s, %d {ignore_index = -100 : i64} : tensor<?x32xbf16>, tensor<24x32xbf16>, tensor<?xi32>, tensor<?xf32>, tensor<?xf32> -> tensor<?x32xbf16>, tensor<24x32xbf16>
  %logits = attn.matmul %h, %e {transpose_b} : tensor<?x32xbf16>, tensor<24x32xbf16> -> tensor<?x24xbf16>
  // CHECK: attn.cross_entropy_partial %{{.*}}, %{{.*}} {ignore_index = -100 : i64, vocab_offset = 8 : i64} : tensor<?x24xbf16>, tensor<?xi32> -> tensor<1x?xf32>, tensor<1x?xf32>
  %p, %t = attn.cross_entropy_partial %logits, %y {ignore_index = -100 : i64, vocab_offset = 8 : i64} : tensor<?x24xbf16>, tensor<?xi32> -> tensor<1x?xf32>, tensor<1x?xf32>
  // CHECK: attn.cross_entropy_combine %{{.*}}, %{{.*}}, %{{.*}} {ignore_index = -100 : i64, vocab_size = 32 : i64} : tensor<1x?xf32>, tensor<1x?xf32>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  %cl, %cs = attn.cross_entropy_combine %p, %t, %y {ignore_index = -100 : i64, vocab_size = 32 : i64} : tensor<1x?xf32>, tensor<1x?xf32>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  // CHECK: attn.cross_entropy_grad %{{.*}} {ignore_index = -100 : i64, vocab_offset = 8 : i64}
  %dl = attn.cross_entropy_grad %logits, %y, %cs, %d {ignore_index = -100 : i64, vocab_offset = 8 : i64} : tensor<?x24xbf16>, tensor<?xi32>, tensor<?xf32>, tensor<?xf32> -> tensor<?x24xbf16>
  return %cl, %dh, %de, %l, %dl : tensor<?xf32>, tensor<?x32xbf16>, tensor<24x32xbf16>, tensor<?xf32>, tensor<?x24xbf16>
}
