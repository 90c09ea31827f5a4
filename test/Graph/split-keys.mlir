// RUN: attn-opt %s -split-input-file -attn-split-keys='target=sm_90a' | FileCheck %s
// RUN: attn-opt %s -split-input-file -attn-split-keys='target=sm_90a tensor-cores=mma-sync' | FileCheck %s --check-prefix=SYNC
// RUN: attn-opt %s -split-input-file -attn-split-keys='key-ranges=3' | FileCheck %s --check-prefix=THREE
// RUN: attn-opt %s -split-input-file -attn-split-keys | FileCheck %s --check-prefix=HOST

// Decoding on a GPU: 16 key ranges for the wgmma kernel that holds a
// key/value group's heads (32 for mma.sync warps); the split kernel takes
// the op's operands, attributes and regions, the combine kernel gives its
// results.
// CHECK-LABEL: func.func @decode
// CHECK-SAME:      (%[[Q:[^:]+]]: {{.*}}, %[[K:[^:]+]]: {{.*}}, %[[V:[^:]+]]: {{.*}})
// CHECK:         %[[PO:.+]], %[[PL:.+]] = attn.attention_split %[[Q]], %[[K]], %[[V]] {bottom_right, causal, scale = 2.500000e-01 : f32}
// CHECK-SAME:      -> tensor<16x?x32x1x128xf32>, tensor<16x?x32x1xf32> score {
// CHECK:           math.tanh
// CHECK:         %[[O:.+]], %[[L:.+]] = attn.attention_combine %[[PO]], %[[PL]] : tensor<16x?x32x1x128xf32>, tensor<16x?x32x1xf32> -> tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>
// CHECK:         return %[[O]], %[[L]]
// SYNC-LABEL: func.func @decode
// SYNC:         attn.attention_split {{.*}} -> tensor<32x?x32x1x128xf32>, tensor<32x?x32x1xf32>
// THREE-LABEL: func.func @decode
// THREE:         attn.attention_split {{.*}} -> tensor<3x?x32x1x128xf32>, tensor<3x?x32x1xf32>
// HOST-LABEL: func.func @decode
// HOST-NOT:      attention_split
// HOST:          attn.attention %
func.func @decode(%q: tensor<?x32x1x128xbf16>, %k: tensor<?x8x?x128xbf16>, %v: tensor<?x8x?x128xbf16>)
    -> (tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>) {
  %o, %l = attn.attention %q, %k, %v {causal, bottom_right, scale = 0.25 : f32}
      : tensor<?x32x1x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>
      -> tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %t = math.tanh %s : f32
      attn.yield %t : f32
    }
  return %o, %l : tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>
}

// -----

// A static key length gives ranges of at least 256 keys: 1024 keys, 4
// ranges; 300 keys stay whole.
// CHECK-LABEL: func.func @short_cache
// CHECK:         attn.attention_split {{.*}} -> tensor<4x2x8x1x64xf32>, tensor<4x2x8x1xf32>
// CHECK-LABEL: func.func @shorter_cache
// CHECK-NOT:     attention_split
// CHECK:         attn.attention %
func.func @short_cache(%q: tensor<2x8x1x64xf16>, %k: tensor<2x8x1024x64xf16>)
    -> (tensor<2x8x1x64xf16>, tensor<2x8x1xf32>) {
  %o, %l = attn.attention %q, %k, %k
      : tensor<2x8x1x64xf16>, tensor<2x8x1024x64xf16>, tensor<2x8x1024x64xf16>
      -> tensor<2x8x1x64xf16>, tensor<2x8x1xf32>
  return %o, %l : tensor<2x8x1x64xf16>, tensor<2x8x1xf32>
}
func.func @shorter_cache(%q: tensor<2x8x1x64xf16>, %k: tensor<2x8x300x64xf16>)
    -> (tensor<2x8x1x64xf16>, tensor<2x8x1xf32>) {
  %o, %l = attn.attention %q, %k, %k
      : tensor<2x8x1x64xf16>, tensor<2x8x300x64xf16>, tensor<2x8x300x64xf16>
      -> tensor<2x8x1x64xf16>, tensor<2x8x1xf32>
  return %o, %l : tensor<2x8x1x64xf16>, tensor<2x8x1xf32>
}

// -----

// Prefill (a dynamic or long query length) and f32 (no tensor cores) stay
// whole by default.
// CHECK-LABEL: func.func @prefill
// CHECK-NOT:     attention_split
// CHECK-LABEL: func.func @decode_f32
// CHECK-NOT:     attention_split
// CHECK:         attn.attention %
func.func @prefill(%q: tensor<1x8x?x64xbf16>) -> (tensor<1x8x?x64xbf16>, tensor<1x8x?xf32>) {
  %o, %l = attn.attention %q, %q, %q {causal}
      : tensor<1x8x?x64xbf16>, tensor<1x8x?x64xbf16>, tensor<1x8x?x64xbf16>
      -> tensor<1x8x?x64xbf16>, tensor<1x8x?xf32>
  return %o, %l : tensor<1x8x?x64xbf16>, tensor<1x8x?xf32>
}
func.func @decode_f32(%q: tensor<1x8x1x64xf32>, %k: tensor<1x8x?x64xf32>)
    -> (tensor<1x8x1x64xf32>, tensor<1x8x1xf32>) {
  %o, %l = attn.attention %q, %k, %k
      : tensor<1x8x1x64xf32>, tensor<1x8x?x64xf32>, tensor<1x8x?x64xf32>
      -> tensor<1x8x1x64xf32>, tensor<1x8x1xf32>
  return %o, %l : tensor<1x8x1x64xf32>, tensor<1x8x1xf32>
}
