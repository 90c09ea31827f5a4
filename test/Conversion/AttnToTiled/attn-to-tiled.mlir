// RUN: attn-opt %s -split-input-file --convert-attn-to-tiled --canonicalize --cse | FileCheck %s

// Causal grouped-query attention with pinned tiles: the kernel signature, the
// block loop over [begin, end), bf16 staged in f32, the causal bound on the
// key loop, per-tile classification (skip empty, mask only partial tiles),
// log2(e) folded into the scale, and the online softmax with exp2.

// CHECK-LABEL: func.func @causal_gqa(
// CHECK-SAME:    %[[Q:[a-z0-9]+]]: memref<2x8x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK-SAME:    %[[K:[a-z0-9]+]]: memref<2x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK-SAME:    %[[V:[a-z0-9]+]]: memref<2x2x?x32xbf16, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<2x8x?x32xbf16, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK-SAME:    %[[LSE:[a-z0-9]+]]: memref<2x8x?xf32, strided<[?, ?, ?], offset: ?>>,
// CHECK-SAME:    %[[BEGIN:[a-z0-9]+]]: index, %[[END:[a-z0-9]+]]: index)
// CHECK-SAME:    attributes {attn.kernel = #attn.tiles<block_m = 16, block_n = 32>, llvm.emit_c_interface}
// CHECK-DAG:     %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG:     %[[SCALE_LOG2E:.*]] = arith.constant 0.180336878 : f32
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : index
// CHECK:         %[[Q_TILE:.*]] = memref.alloc() : memref<16x64xf32>
// CHECK:         %[[K_TILE:.*]] = memref.alloc() : memref<32x64xf32>
// CHECK:         %[[V_TILE:.*]] = memref.alloc() : memref<32x32xf32>
// CHECK:         %[[S_TILE:.*]] = memref.alloc() : memref<16x32xf32>
// CHECK:         %[[ACC:.*]] = memref.alloc() : memref<16x32xf32>
// CHECK:         scf.for %{{.*}} = %[[BEGIN]] to %[[END]]
// CHECK:           %[[HEAD_KV:.*]] = arith.divui %{{.*}}, %[[C4]] : index
// CHECK:           arith.extf %{{.*}} : bf16 to f32
// CHECK:           %[[K_END:.*]] = arith.minsi
// CHECK:           scf.for %[[K0:.*]] = %{{.*}} to %[[K_END]] step %[[C32]]
// CHECK:             %[[MAY_ALLOW:.*]] = arith.cmpi sle, %[[K0]], %{{.*}} : index
// CHECK:             %[[MAY_BLOCK:.*]] = arith.cmpi sgt, %{{.*}}, %{{.*}} : index
// CHECK:             scf.if %[[MAY_ALLOW]] {
// CHECK:               memref.load %[[K]][%{{.*}}, %[[HEAD_KV]], %{{.*}}, %{{.*}}]
// CHECK:               arith.mulf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// CHECK:               arith.mulf %{{.*}}, %[[SCALE_LOG2E]] : f32
// CHECK:               scf.if %[[MAY_BLOCK]] {
// CHECK:                 %[[ALLOWED:.*]] = arith.cmpi sle
// CHECK:                 arith.select %[[ALLOWED]], %{{.*}}, %[[NEG_INF]] : f32
// CHECK:               arith.maximumf
// CHECK:               math.exp2
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
// CHECK:           memref.store %{{.*}}, %[[OUT]]
// CHECK:           math.log2
// CHECK:           memref.store %{{.*}}, %[[LSE]]
// CHECK:         memref.dealloc %[[Q_TILE]]
func.func @causal_gqa(%q: tensor<2x8x?x64xbf16>, %k: tensor<2x2x?x64xbf16>, %v: tensor<2x2x?x32xbf16>)
    -> (tensor<2x8x?x32xbf16>, tensor<2x8x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {causal, scale = 0.125 : f32, tiles = #attn.tiles<block_m = 16, block_n = 32>}
      : tensor<2x8x?x64xbf16>, tensor<2x2x?x64xbf16>, tensor<2x2x?x32xbf16>
      -> tensor<2x8x?x32xbf16>, tensor<2x8x?xf32>
  return %o, %l : tensor<2x8x?x32xbf16>, tensor<2x8x?xf32>
}

// -----

// No mask: no classification branch and no mask loop; a left window starts
// the key loop at the first aligned tile that can be visible.

// CHECK-LABEL: func.func @no_mask(
// CHECK-NOT:     scf.if
// CHECK-NOT:     arith.cmpi
// CHECK:         return
func.func @no_mask(%q: tensor<1x1x?x16xf32>, %k: tensor<1x1x?x16xf32>, %v: tensor<1x1x?x16xf32>)
    -> (tensor<1x1x?x16xf32>, tensor<1x1x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {tiles = #attn.tiles<block_m = 8, block_n = 8>}
      : tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32>
      -> tensor<1x1x?x16xf32>, tensor<1x1x?xf32>
  return %o, %l : tensor<1x1x?x16xf32>, tensor<1x1x?xf32>
}

// CHECK-LABEL: func.func @left_window(
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[LEFT:.*]] = arith.constant 20 : index
// CHECK:         %[[FIRST:.*]] = arith.subi %{{.*}}, %[[LEFT]] : index
// CHECK:         %[[CLAMPED:.*]] = arith.maxsi %[[FIRST]], %{{.*}} : index
// CHECK:         %[[TILE:.*]] = arith.divui %[[CLAMPED]], %[[C8]] : index
// CHECK:         %[[BEGIN:.*]] = arith.muli %[[TILE]], %[[C8]] : index
// CHECK:         scf.for %{{.*}} = %[[BEGIN]] to %{{.*}} step %[[C8]]
func.func @left_window(%q: tensor<1x1x?x16xf32>, %k: tensor<1x1x?x16xf32>, %v: tensor<1x1x?x16xf32>)
    -> (tensor<1x1x?x16xf32>, tensor<1x1x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {window_left = 20 : i64, tiles = #attn.tiles<block_m = 8, block_n = 8>}
      : tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32>
      -> tensor<1x1x?x16xf32>, tensor<1x1x?xf32>
  return %o, %l : tensor<1x1x?x16xf32>, tensor<1x1x?xf32>
}

// -----

// A document mask from indices: the classifier interprets the region over the
// tile's index intervals (divui by a constant is monotone, eq compares the
// ranges), and the element mask inlines the region per score.

// CHECK-LABEL: func.func @document(
// CHECK-DAG:     %[[DOC:.*]] = arith.constant 128 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK:         scf.for %[[K0:.*]] = %{{.*}} to %{{.*}} step %[[C8]]
// CHECK:           %[[K_LAST:.*]] = arith.subi %{{.*}}, %[[C1]] : index
// CHECK-DAG:       arith.divui %[[K0]], %[[DOC]] : index
// CHECK-DAG:       arith.divui %[[K_LAST]], %[[DOC]] : index
// CHECK:           scf.if
// CHECK:             scf.if
// CHECK:               %[[QD:.*]] = arith.divui %{{.*}}, %[[DOC]] : index
// CHECK:               %[[KD:.*]] = arith.divui %{{.*}}, %[[DOC]] : index
// CHECK:               %[[SAME:.*]] = arith.cmpi eq, %[[QD]], %[[KD]] : index
// CHECK:               arith.select %[[SAME]]
func.func @document(%q: tensor<1x1x?x16xf32>, %k: tensor<1x1x?x16xf32>, %v: tensor<1x1x?x16xf32>)
    -> (tensor<1x1x?x16xf32>, tensor<1x1x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {tiles = #attn.tiles<block_m = 8, block_n = 8>}
      : tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32>
      -> tensor<1x1x?x16xf32>, tensor<1x1x?xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %c128 = arith.constant 128 : index
      %qd = arith.divui %qi, %c128 : index
      %kd = arith.divui %ki, %c128 : index
      %same = arith.cmpi eq, %qd, %kd : index
      attn.yield %same : i1
    }
  return %o, %l : tensor<1x1x?x16xf32>, tensor<1x1x?xf32>
}

// -----

// A score region is inlined per score on the scaled score; log2(e) is applied
// after it, so the region sees natural units.

// CHECK-LABEL: func.func @softcap(
// CHECK-DAG:     %[[SCALE:.*]] = arith.constant 2.500000e-01 : f32
// CHECK-DAG:     %[[CAP:.*]] = arith.constant 3.000000e+01 : f32
// CHECK-DAG:     %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// CHECK:         %[[DOT:.*]] = scf.for
// CHECK:         %[[SCALED:.*]] = arith.mulf %[[DOT]], %[[SCALE]] : f32
// CHECK:         %[[X:.*]] = arith.divf %[[SCALED]], %[[CAP]] : f32
// CHECK:         %[[T:.*]] = math.tanh %[[X]] : f32
// CHECK:         %[[S:.*]] = arith.mulf %[[T]], %[[CAP]] : f32
// CHECK:         arith.mulf %[[S]], %[[LOG2E]] : f32
func.func @softcap(%q: tensor<1x1x?x16xf32>, %k: tensor<1x1x?x16xf32>, %v: tensor<1x1x?x16xf32>)
    -> (tensor<1x1x?x16xf32>, tensor<1x1x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {tiles = #attn.tiles<block_m = 8, block_n = 8>}
      : tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32>
      -> tensor<1x1x?x16xf32>, tensor<1x1x?xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %cap = arith.constant 30.0 : f32
      %x = arith.divf %s, %cap : f32
      %t = math.tanh %x : f32
      %r = arith.mulf %t, %cap : f32
      attn.yield %r : f32
    }
  return %o, %l : tensor<1x1x?x16xf32>, tensor<1x1x?xf32>
}

// -----

// A function that returns only the output gets no lse argument.

// CHECK-LABEL: func.func @out_only(
// CHECK-SAME:    memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>, %{{.*}}: index, %{{.*}}: index)
// CHECK-NOT:     math.log2
func.func @out_only(%q: tensor<1x1x?x16xf32>, %k: tensor<1x1x?x16xf32>, %v: tensor<1x1x?x16xf32>)
    -> tensor<1x1x?x16xf32> {
  %o, %l = attn.attention %q, %k, %v {tiles = #attn.tiles<block_m = 8, block_n = 8>}
      : tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32>
      -> tensor<1x1x?x16xf32>, tensor<1x1x?xf32>
  return %o : tensor<1x1x?x16xf32>
}
