// RUN: attn-opt %s -split-input-file -attn-expand-attention-grad | FileCheck %s
// RUN: attn-opt %s -split-input-file -attn-expand-attention-grad='target=sm_90a' | FileCheck %s --check-prefix=GPU

// Fast dq: the delta kernel zeroes an f32 accumulator that the key/value
// kernel adds into in place, its rows swizzled in halves of the head dim;
// a cast reading that order gives dq its type. Attributes and regions go
// to the key/value kernel.

// CHECK-LABEL: func.func @atomic
// CHECK-SAME:      (%[[Q:[^:]+]]: {{.*}}, %[[K:[^:]+]]: {{.*}}, %[[V:[^:]+]]: {{.*}}, %[[O:[^:]+]]: {{.*}}, %[[L:[^:]+]]: {{.*}}, %[[DO:[^:]+]]: {{.*}})
// CHECK:         %[[DELTA:.+]], %[[ACC:.+]] = attn.attention_grad_delta %[[O]], %[[DO]] : tensor<2x4x8x32xbf16>, tensor<2x4x8x32xbf16> -> tensor<2x4x8xf32>, tensor<2x4x8x64xf32>
// CHECK:         %[[DK:.+]], %[[DV:.+]], %[[SUM:.+]] = attn.attention_grad_kv %[[Q]], %[[K]], %[[V]], %[[L]], %[[DELTA]], %[[DO]], %[[ACC]] {causal, row_swizzle = 32 : i64, window_left = 4 : i64}
// CHECK-SAME:      -> tensor<2x2x8x64xbf16>, tensor<2x2x8x32xbf16>, tensor<2x4x8x64xf32> mask
// CHECK:         score_grad
// CHECK:         %[[DQ:.+]] = attn.cast %[[SUM]] {in_row_swizzle = 32 : i64} : tensor<2x4x8x64xf32> to tensor<2x4x8x64xbf16>
// CHECK:         return %[[DQ]], %[[DK]], %[[DV]]
func.func @atomic(%q: tensor<2x4x8x64xbf16>, %k: tensor<2x2x8x64xbf16>, %v: tensor<2x2x8x32xbf16>,
                  %o: tensor<2x4x8x32xbf16>, %l: tensor<2x4x8xf32>, %do: tensor<2x4x8x32xbf16>)
    -> (tensor<2x4x8x64xbf16>, tensor<2x2x8x64xbf16>, tensor<2x2x8x32xbf16>) {
  %dq, %dk, %dv = attn.attention_grad %q, %k, %v, %o, %l, %do {causal, window_left = 4}
      : tensor<2x4x8x64xbf16>, tensor<2x2x8x64xbf16>, tensor<2x2x8x32xbf16>, tensor<2x4x8x32xbf16>, tensor<2x4x8xf32>, tensor<2x4x8x32xbf16>
      -> tensor<2x4x8x64xbf16>, tensor<2x2x8x64xbf16>, tensor<2x2x8x32xbf16>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %t = arith.constant true
      attn.yield %t : i1
    }
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      attn.yield %s : f32
    } score_grad {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %one = arith.constant 1.0 : f32
      attn.yield %one : f32
    }
  return %dq, %dk, %dv : tensor<2x4x8x64xbf16>, tensor<2x2x8x64xbf16>, tensor<2x2x8x32xbf16>
}

// -----

// Deterministic dq: no accumulator; a kernel per query block computes it.

// CHECK-LABEL: func.func @deterministic
// CHECK:         %[[DELTA:.+]], %{{.+}} = attn.attention_grad_delta
// CHECK:         %[[DK:.+]], %[[DV:.+]] = attn.attention_grad_kv %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[DELTA]], %{{[^,]+}} {scale = 5.000000e-01 : f32} :
// CHECK:         %[[DQ:.+]] = attn.attention_grad_q %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[DELTA]], %{{[^,]+}} {scale = 5.000000e-01 : f32} :
// CHECK-NOT:     attn.cast
// CHECK:         return %[[DQ]], %[[DK]], %[[DV]]
func.func @deterministic(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>)
    -> (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) {
  %dq, %dk, %dv = attn.attention_grad %q, %q, %q, %q, %l, %q {deterministic, scale = 0.5 : f32}
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
  return %dq, %dk, %dv : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
}

// -----

// The swizzle width is half the head dim (48: the whole row; 8: none,
// column order). Which program is faster depends on the target: for
// f16/bf16 heads of 128 and more a GPU gets dq from its own kernel, the
// host keeps the atomic program; narrower heads and f32 (scalar kernels)
// keep it on both, except f16/bf16 heads that are not multiples of 64 on a
// GPU with wgmma (its key/value kernel adds dq only at whole panels).

// CHECK-LABEL: func.func @widths
// CHECK:         attn.attention_grad_kv {{.*}}row_swizzle = 64 : i64{{.*}} -> tensor<1x2x8x128xbf16>, tensor<1x2x8x128xbf16>, tensor<1x2x8x128xf32>
// CHECK:         attn.cast {{.*}}{in_row_swizzle = 64 : i64}
// CHECK:         attn.attention_grad_kv {{.*}}row_swizzle = 48 : i64{{.*}} -> tensor<1x2x8x48xbf16>, tensor<1x2x8x48xbf16>, tensor<1x2x8x48xf32>
// CHECK:         attn.cast {{.*}}{in_row_swizzle = 48 : i64}
// CHECK:         attn.attention_grad_kv
// CHECK-NOT:       row_swizzle
// CHECK-SAME:      -> tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>
// CHECK:         attn.cast
// CHECK-NOT:       in_row_swizzle
// CHECK-SAME:      : tensor<1x2x8x8xf32> to tensor<1x2x8x8xf32>
// GPU-LABEL:   func.func @widths
// GPU:           attn.attention_grad_kv
// GPU-NOT:         row_swizzle
// GPU-SAME:        -> tensor<1x2x8x128xbf16>, tensor<1x2x8x128xbf16>{{$}}
// GPU:           attn.attention_grad_q
// GPU:           attn.attention_grad_kv
// GPU-NOT:         row_swizzle
// GPU-SAME:        -> tensor<1x2x8x48xbf16>, tensor<1x2x8x48xbf16>{{$}}
// GPU:           attn.attention_grad_q {{.*}} -> tensor<1x2x8x48xbf16>
// GPU:           attn.attention_grad_kv {{.*}} -> tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>
// GPU-NOT:       attn.attention_grad_q
func.func @widths(%q: tensor<1x2x8x128xbf16>, %n: tensor<1x2x8x48xbf16>, %f: tensor<1x2x8x8xf32>,
                  %l: tensor<1x2x8xf32>) {
  %dq, %dk, %dv = attn.attention_grad %q, %q, %q, %q, %l, %q
      : tensor<1x2x8x128xbf16>, tensor<1x2x8x128xbf16>, tensor<1x2x8x128xbf16>, tensor<1x2x8x128xbf16>, tensor<1x2x8xf32>, tensor<1x2x8x128xbf16>
      -> tensor<1x2x8x128xbf16>, tensor<1x2x8x128xbf16>, tensor<1x2x8x128xbf16>
  %ndq, %ndk, %ndv = attn.attention_grad %n, %n, %n, %n, %l, %n
      : tensor<1x2x8x48xbf16>, tensor<1x2x8x48xbf16>, tensor<1x2x8x48xbf16>, tensor<1x2x8x48xbf16>, tensor<1x2x8xf32>, tensor<1x2x8x48xbf16>
      -> tensor<1x2x8x48xbf16>, tensor<1x2x8x48xbf16>, tensor<1x2x8x48xbf16>
  %fdq, %fdk, %fdv = attn.attention_grad %f, %f, %f, %f, %l, %f
      : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8x8xf32>
      -> tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>
  return
}
