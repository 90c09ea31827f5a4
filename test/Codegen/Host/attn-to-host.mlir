// RUN: attn-opt %s -split-input-file --convert-attn-to-host --canonicalize --cse | FileCheck %s

// Kernel functions as attn-form-programs writes them (destination-passing:
// operands read by bufferization.to_tensor, kept results written by
// bufferization.materialize_in_destination) become an scf.forall over the
// grid of blocks that writes the result buffers.

// Causal grouped-query attention with pinned tiles: the grid
// (ceil(Nq / 16), Hq, B) with one block per iteration; the block's f32
// working tiles; bf16 staged in f32; the key loop bounded by the causal
// mask; each key tile classified (skipped when empty, masked only when
// partial); the scale with log2(e) folded into the factor of one fma per
// exponent; exp2; the output rounded to bf16 and the lse from log2.

// CHECK-LABEL: func.func @causal_gqa(
// CHECK-SAME:    %[[Q:[a-z0-9]+]]: memref<2x8x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK-SAME:    %[[K:[a-z0-9]+]]: memref<2x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK-SAME:    %[[V:[a-z0-9]+]]: memref<2x2x?x32xbf16, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<2x8x?x32xbf16, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK-SAME:    %[[LSE:[a-z0-9]+]]: memref<2x8x?xf32, strided<[?, ?, ?], offset: ?>>)
// CHECK-SAME:    attributes {attnrt.kernel} {
// CHECK-DAG:     %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG:     %[[FACTOR:.*]] = arith.constant 0.180336878 : f32
// CHECK-DAG:     %[[LN2:.*]] = arith.constant 0.693147182 : f32
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : index
// CHECK:         %[[NQ:.*]] = memref.dim %[[Q]], %[[C2]]
// CHECK:         %[[QBLOCKS:.*]] = arith.ceildivui %[[NQ]], %[[C16]] : index
// CHECK:         scf.forall (%[[QBLOCK:[a-z0-9_]+]], %[[HEAD:[a-z0-9_]+]], %[[BATCH:[a-z0-9_]+]]) in (%[[QBLOCKS]], 8, 2) {
// CHECK:           %[[Q_TILE:.*]] = memref.alloc() : memref<16x64xf32>
// CHECK:           %[[K_TILE:.*]] = memref.alloc() : memref<32x64xf32>
// CHECK:           %[[V_TILE:.*]] = memref.alloc() : memref<32x32xf32>
// CHECK:           %[[S_TILE:.*]] = memref.alloc() : memref<16x32xf32>
// CHECK:           %[[ACC:.*]] = memref.alloc() : memref<16x32xf32>
// CHECK:           %[[ROW_MAX:.*]] = memref.alloc() : memref<16xf32>
// CHECK:           %[[ROW_SUM:.*]] = memref.alloc() : memref<16xf32>
// CHECK:           %[[NK:.*]] = memref.dim %[[K]], %[[C2]]
// CHECK:           %[[HEAD_KV:.*]] = arith.divui %[[HEAD]], %[[C4]] : index
// CHECK:           %[[Q0:.*]] = arith.muli %[[QBLOCK]], %[[C16]] : index
// CHECK:           memref.load %[[Q]][%[[BATCH]], %[[HEAD]], %{{.*}}, %{{.*}}]
// CHECK-NEXT:      arith.extf %{{.*}} : bf16 to f32
// CHECK:           %[[K_END:.*]] = arith.minsi %[[NK]], %{{.*}} : index
// CHECK:           scf.for %[[K0:.*]] = %{{.*}} to %[[K_END]] step %[[C32]] {
// CHECK:             %[[MAY_ALLOW:.*]] = arith.cmpi sle, %[[K0]], %{{.*}} : index
// CHECK:             %[[MAY_BLOCK:.*]] = arith.cmpi sgt, %{{.*}}, %[[Q0]] : index
// CHECK:             scf.if %[[MAY_ALLOW]] {
// CHECK:               memref.load %[[K]][%[[BATCH]], %[[HEAD_KV]], %{{.*}}, %{{.*}}]
// CHECK:               memref.load %[[V]][%[[BATCH]], %[[HEAD_KV]], %{{.*}}, %{{.*}}]
// CHECK:               arith.mulf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// CHECK:               scf.if %[[MAY_BLOCK]] {
// CHECK:                 %[[ALLOWED:.*]] = arith.cmpi sle, %{{.*}}, %{{.*}} : index
// CHECK:                 arith.select %[[ALLOWED]], %{{.*}}, %[[NEG_INF]] : f32
// CHECK:               }
// CHECK:               %[[TILE_MAX:.*]] = scf.for
// CHECK:                 arith.maximumf
// CHECK:               arith.mulf %[[TILE_MAX]], %[[FACTOR]] : f32
// CHECK:               math.exp2
// CHECK:               scf.for
// CHECK:                 %[[E:.*]] = math.fma %{{.*}}, %[[FACTOR]], %{{.*}} : f32
// CHECK-NEXT:            math.exp2 %[[E]] : f32
// CHECK:           math.log2
// CHECK:           arith.mulf %{{.*}}, %[[LN2]] : f32
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
// CHECK-NEXT:      memref.store %{{.*}}, %[[OUT]][%[[BATCH]], %[[HEAD]], %{{.*}}, %{{.*}}]
// CHECK:           memref.store %{{.*}}, %[[LSE]][%[[BATCH]], %[[HEAD]], %{{.*}}]
// CHECK:           memref.dealloc %[[Q_TILE]]
// CHECK:           memref.dealloc %[[ROW_SUM]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NOT:     attn.
// CHECK-NOT:     bufferization.
module @attnc_kernels {
  func.func @causal_gqa(%q: memref<2x8x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                        %k: memref<2x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                        %v: memref<2x2x?x32xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                        %out: memref<2x8x?x32xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                        %lse: memref<2x8x?xf32, strided<[?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %q : memref<2x8x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<2x8x?x64xbf16>
    %1 = bufferization.to_tensor %k : memref<2x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<2x2x?x64xbf16>
    %2 = bufferization.to_tensor %v : memref<2x2x?x32xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<2x2x?x32xbf16>
    %o, %l = attn.attention %0, %1, %2 {causal, scale = 0.125 : f32, tiles = #attn.tiles<block_m = 16, block_n = 32>}
        : tensor<2x8x?x64xbf16>, tensor<2x2x?x64xbf16>, tensor<2x2x?x32xbf16> -> tensor<2x8x?x32xbf16>, tensor<2x8x?xf32>
    bufferization.materialize_in_destination %o in writable %out : (tensor<2x8x?x32xbf16>, memref<2x8x?x32xbf16, strided<[?, ?, ?, ?], offset: ?>>) -> ()
    bufferization.materialize_in_destination %l in writable %lse : (tensor<2x8x?xf32>, memref<2x8x?xf32, strided<[?, ?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// No mask: no classification, no branch and no mask; every key tile from
// 0. Only the output is kept: no lse is computed. A left window starts the
// key loop at the first aligned tile that can be visible, and only the lse
// is written.

// CHECK-LABEL: func.func @no_mask(
// CHECK-SAME:    %[[Q:[a-z0-9]+]]: memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK:         %[[NQ:.*]] = memref.dim %[[Q]]
// CHECK:         scf.forall
// CHECK:           scf.for %{{.*}} = %[[C0]] to %[[NQ]] step %[[C8]] {
// CHECK-NOT:         scf.if
// CHECK-NOT:         arith.cmpi
// CHECK-NOT:         math.log2
// CHECK:           memref.store %{{.*}}, %[[OUT]]
// CHECK:         return

// CHECK-LABEL: func.func @left_window(
// CHECK-SAME:    %{{[a-z0-9]+}}: memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK-SAME:    %[[LSE:[a-z0-9]+]]: memref<1x1x?xf32, strided<[?, ?, ?], offset: ?>>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[LEFT:.*]] = arith.constant 20 : index
// CHECK:         scf.forall (%[[QBLOCK:[a-z0-9_]+]]) in
// CHECK:           %[[Q0:.*]] = arith.muli %[[QBLOCK]], %[[C8]] : index
// CHECK:           %[[FIRST:.*]] = arith.subi %[[Q0]], %[[LEFT]] : index
// CHECK:           %[[CLAMPED:.*]] = arith.maxsi %[[FIRST]], %[[C0]] : index
// CHECK:           %[[TILE:.*]] = arith.divui %[[CLAMPED]], %[[C8]] : index
// CHECK:           %[[BEGIN:.*]] = arith.muli %[[TILE]], %[[C8]] : index
// CHECK:           scf.for %{{.*}} = %[[BEGIN]] to %{{.*}} step %[[C8]]
// CHECK:           math.log2
// CHECK:           memref.store %{{.*}}, %[[LSE]]
// CHECK:         return
module @attnc_kernels {
  func.func @no_mask(%q: memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>,
                     %out: memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %q : memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x1x?x16xf32>
    %o, %l = attn.attention %0, %0, %0 {tiles = #attn.tiles<block_m = 8, block_n = 8>}
        : tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32> -> tensor<1x1x?x16xf32>, tensor<1x1x?xf32>
    bufferization.materialize_in_destination %o in writable %out : (tensor<1x1x?x16xf32>, memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>) -> ()
    return
  }
  func.func @left_window(%q: memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>,
                         %lse: memref<1x1x?xf32, strided<[?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %q : memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x1x?x16xf32>
    %o, %l = attn.attention %0, %0, %0 {window_left = 20 : i64, tiles = #attn.tiles<block_m = 8, block_n = 8>}
        : tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32> -> tensor<1x1x?x16xf32>, tensor<1x1x?xf32>
    bufferization.materialize_in_destination %l in writable %lse : (tensor<1x1x?xf32>, memref<1x1x?xf32, strided<[?, ?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// A document mask from indices: the classifier interprets the region over
// the tile's index intervals (divui by a constant is monotone, eq compares
// the ranges), and partial tiles inline the region per score.

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
module @attnc_kernels {
  func.func @document(%q: memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>,
                      %out: memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %q : memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x1x?x16xf32>
    %o, %l = attn.attention %0, %0, %0 {tiles = #attn.tiles<block_m = 8, block_n = 8>}
        : tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32> -> tensor<1x1x?x16xf32>, tensor<1x1x?xf32>
      mask {
      ^bb0(%b: index, %h: index, %qi: index, %ki: index):
        %c128 = arith.constant 128 : index
        %qd = arith.divui %qi, %c128 : index
        %kd = arith.divui %ki, %c128 : index
        %same = arith.cmpi eq, %qd, %kd : index
        attn.yield %same : i1
      }
    bufferization.materialize_in_destination %o in writable %out : (tensor<1x1x?x16xf32>, memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// Document ids read from a captured tensor: the classifier bounds each
// capture read by the smallest and largest id over the tile's rows or keys
// (a loop of loads from the first row or key, four per step, 0 past the
// tensor's end), so a tile of one document is
// full and one of disjoint documents is skipped; partial tiles load the ids
// per score, with the bounds check.

// CHECK-LABEL: func.func @captured_documents(
// CHECK-SAME:    %[[DOC:[a-z0-9]+]]: memref<1x?xi32
// CHECK-DAG:     %[[MAX:.*]] = arith.constant 2147483647 : i32
// CHECK-DAG:     %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK:         scf.for %[[K0:.*]] = %{{.*}} to %{{.*}} step %{{.*}}
// CHECK:           %[[QR:.*]]:2 = scf.for %{{.*}} = %c0 to %{{.*}} step %c4 iter_args(%{{.*}} = %[[MAX]], %{{.*}} = %[[MIN]]) -> (i32, i32) {
// CHECK:             memref.dim %[[DOC]]
// CHECK:             memref.load %[[DOC]]
// CHECK:             arith.minsi
// CHECK:             arith.maxsi
// CHECK:           %[[KR:.*]]:2 = scf.for %{{.*}} = %c0 to %{{.*}} step %c4 iter_args(%{{.*}} = %[[MAX]], %{{.*}} = %[[MIN]]) -> (i32, i32) {
// CHECK:             %[[KEY:.*]] = arith.addi %[[K0]], %{{.*}} : index
// CHECK:             memref.load %[[DOC]][%c0, %{{.*}}]
// CHECK:           arith.cmpi sle, %[[QR]]#0, %[[KR]]#1 : i32
// CHECK:           scf.if
// CHECK:             scf.if
// CHECK:               %[[QD:.*]] = memref.load %[[DOC]]
// CHECK:               %[[KD:.*]] = memref.load %[[DOC]]
module @attnc_kernels {
  func.func @captured_documents(%q: memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>,
                                %doc: memref<1x?xi32, strided<[?, ?], offset: ?>>,
                                %out: memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %q : memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x1x?x16xf32>
    %d = bufferization.to_tensor %doc : memref<1x?xi32, strided<[?, ?], offset: ?>> to tensor<1x?xi32>
    %o, %l = attn.attention %0, %0, %0 captures(%d : tensor<1x?xi32>) {tiles = #attn.tiles<block_m = 8, block_n = 8>}
        : tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32> -> tensor<1x1x?x16xf32>, tensor<1x1x?xf32>
      mask {
      ^bb0(%b: index, %h: index, %qi: index, %ki: index, %ids: tensor<1x?xi32>):
        %qd = tensor.extract %ids[%b, %qi] : tensor<1x?xi32>
        %kd = tensor.extract %ids[%b, %ki] : tensor<1x?xi32>
        %same = arith.cmpi eq, %qd, %kd : i32
        attn.yield %same : i1
      }
    bufferization.materialize_in_destination %o in writable %out : (tensor<1x1x?x16xf32>, memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// Interval bounds that may wrap carry a run-time overflow flag (from
// arith.mulsi_extended for products): where it holds, the tile's
// classification is unknown (mask math on every element), never a verdict
// read off wrapped bounds. A divisor that is not a constant is guarded so
// that a zero cannot trap.

// CHECK-LABEL: func.func @wrapping_mask(
// CHECK:         arith.mulsi_extended
// CHECK:         scf.if
// CHECK:           %[[ZERO:.*]] = arith.cmpi eq, %[[DIVISOR:.*]], %{{.*}} : index
// CHECK:           %[[SAFE:.*]] = arith.select %[[ZERO]], %{{.*}}, %[[DIVISOR]] : index
// CHECK:           arith.divui %{{.*}}, %[[SAFE]] : index
module @attnc_kernels {
  func.func @wrapping_mask(%q: memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>,
                           %out: memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %q : memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x1x?x16xf32>
    %o, %l = attn.attention %0, %0, %0 {tiles = #attn.tiles<block_m = 8, block_n = 8>}
        : tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32> -> tensor<1x1x?x16xf32>, tensor<1x1x?xf32>
      mask {
      ^bb0(%b: index, %h: index, %qi: index, %ki: index):
        %m = arith.constant 4611686018427387904 : index
        %c1 = arith.constant 1 : index
        %x = arith.muli %qi, %m : index
        %small = arith.cmpi slt, %x, %c1 : index
        %d = arith.addi %qi, %c1 : index
        %r = arith.divui %ki, %d : index
        %c9 = arith.constant 9 : index
        %near = arith.cmpi ult, %r, %c9 : index
        %ok = arith.andi %small, %near : i1
        attn.yield %ok : i1
      }
    bufferization.materialize_in_destination %o in writable %out : (tensor<1x1x?x16xf32>, memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// A score region is inlined per score on the scaled score, so the region
// sees natural units; log2(e) is the exponent's fma factor.

// CHECK-LABEL: func.func @softcap(
// CHECK-DAG:     %[[SCALE:.*]] = arith.constant 2.500000e-01 : f32
// CHECK-DAG:     %[[CAP:.*]] = arith.constant 3.000000e+01 : f32
// CHECK-DAG:     %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// CHECK:         %[[DOT:.*]] = scf.for
// CHECK:         %[[SCALED:.*]] = arith.mulf %[[DOT]], %[[SCALE]] : f32
// CHECK-NEXT:    %[[X:.*]] = arith.divf %[[SCALED]], %[[CAP]] : f32
// CHECK-NEXT:    %[[T:.*]] = math.tanh %[[X]] : f32
// CHECK-NEXT:    %[[S:.*]] = arith.mulf %[[T]], %[[CAP]] : f32
// CHECK-NEXT:    memref.store %[[S]]
// CHECK:         math.fma %{{.*}}, %[[LOG2E]], %{{.*}} : f32
module @attnc_kernels {
  func.func @softcap(%q: memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>,
                     %out: memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %q : memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x1x?x16xf32>
    %o, %l = attn.attention %0, %0, %0 {tiles = #attn.tiles<block_m = 8, block_n = 8>}
        : tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32> -> tensor<1x1x?x16xf32>, tensor<1x1x?xf32>
      score {
      ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
        %cap = arith.constant 30.0 : f32
        %x = arith.divf %s, %cap : f32
        %t = math.tanh %x : f32
        %r = arith.mulf %t, %cap : f32
        attn.yield %r : f32
      }
    bufferization.materialize_in_destination %o in writable %out : (tensor<1x1x?x16xf32>, memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// A region that adds a product to its score (s - 0.5 * d, ALiBi's form)
// under a power-of-two scale (1/4 at head dim 16) reads the raw score, the
// product's constant factor times 4; the exponent's factor is then
// 1/4 * log2(e), which gives the same values (scaling by 2^k is exact).

// CHECK-LABEL: func.func @biased(
// CHECK-DAG:     %[[SLOPE:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-DAG:     %[[FACTOR:.*]] = arith.constant 0.360673755 : f32
// CHECK:         %[[DOT:.*]] = scf.for
// CHECK-NOT:     arith.mulf %[[DOT]]
// CHECK:         %[[D:.*]] = arith.sitofp %{{.*}} : i64 to f32
// CHECK-NEXT:    %[[BIAS:.*]] = arith.mulf %[[D]], %[[SLOPE]] : f32
// CHECK-NEXT:    %[[S:.*]] = arith.subf %[[DOT]], %[[BIAS]] : f32
// CHECK-NEXT:    memref.store %[[S]]
// CHECK:         math.fma %{{.*}}, %[[FACTOR]], %{{.*}} : f32
module @attnc_kernels {
  func.func @biased(%q: memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>,
                    %out: memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %q : memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x1x?x16xf32>
    %o, %l = attn.attention %0, %0, %0 {tiles = #attn.tiles<block_m = 8, block_n = 8>}
        : tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32> -> tensor<1x1x?x16xf32>, tensor<1x1x?xf32>
      score {
      ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
        %slope = arith.constant 0.5 : f32
        %d = arith.subi %qi, %ki : index
        %di = arith.index_cast %d : index to i64
        %df = arith.sitofp %di : i64 to f32
        %bias = arith.mulf %slope, %df : f32
        %r = arith.subf %s, %bias : f32
        attn.yield %r : f32
      }
    bufferization.materialize_in_destination %o in writable %out : (tensor<1x1x?x16xf32>, memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// A cast: blocks of block_size elements in row-major order, each a loop to
// the end of its block or of the tensor, converting in f32: extend, scale,
// round once. The block's first multi-index is computed once; the loop
// steps it by one with a carry, without dividing. A block of 100 elements
// does not start at a multiple of 8, so it has no vector chunks.

// CHECK-LABEL: func.func @cast(
// CHECK-SAME:    %[[IN:[a-z0-9]+]]: memref<?x8xf16, strided<[?, ?], offset: ?>>,
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<?x8xbf16, strided<[?, ?], offset: ?>>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[CM7:.*]] = arith.constant -7 : index
// CHECK-DAG:     %[[BLOCK:.*]] = arith.constant 100 : index
// CHECK-DAG:     %[[SCALE:.*]] = arith.constant 5.000000e-01 : f32
// CHECK:         %[[ROWS:.*]] = memref.dim %[[IN]], %[[C0]]
// CHECK:         %[[COUNT:.*]] = arith.muli %[[ROWS]], %[[C8]] : index
// CHECK:         %[[BLOCKS:.*]] = arith.ceildivui %[[COUNT]], %[[BLOCK]] : index
// CHECK:         scf.forall (%[[ID:[a-z0-9_]+]]) in (%[[BLOCKS]]) {
// CHECK:           %[[FIRST:.*]] = arith.muli %[[ID]], %[[BLOCK]] : index
// CHECK:           %[[NEXT:.*]] = arith.addi %[[FIRST]], %[[BLOCK]] : index
// CHECK:           %[[LAST:.*]] = arith.minui %[[COUNT]], %[[NEXT]] : index
// CHECK-NOT:       vector.load
// CHECK-DAG:       %[[COL0:.*]] = arith.remui %[[FIRST]], %[[C8]] : index
// CHECK-DAG:       %[[ROW0:.*]] = arith.divui %[[FIRST]], %[[C8]] : index
// CHECK:           scf.for %{{.*}} = %[[FIRST]] to %[[LAST]] step %[[C1]] iter_args(%[[ROW:.*]] = %[[ROW0]], %[[COL:.*]] = %[[COL0]]) -> (index, index) {
// CHECK-NEXT:        %[[X:.*]] = memref.load %[[IN]][%[[ROW]], %[[COL]]]
// CHECK-NEXT:        %[[WIDE:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT:        %[[SCALED:.*]] = arith.mulf %[[WIDE]], %[[SCALE]] : f32
// CHECK-NEXT:        %[[Y:.*]] = arith.truncf %[[SCALED]] : f32 to bf16
// CHECK-NEXT:        memref.store %[[Y]], %[[OUT]][%[[ROW]], %[[COL]]]
// CHECK-NEXT:        %[[COL1:.*]] = arith.addi %[[COL]], %[[C1]] : index
// CHECK-NEXT:        %[[WRAP:.*]] = arith.cmpi uge, %[[COL1]], %[[C8]] : index
// CHECK-NEXT:        %[[COLW:.*]] = arith.addi %[[COL]], %[[CM7]] : index
// CHECK-NEXT:        %[[COLN:.*]] = arith.select %[[WRAP]], %[[COLW]], %[[COL1]] : index
// CHECK-NEXT:        %[[CARRY:.*]] = arith.select %[[WRAP]], %[[C1]], %[[C0]] : index
// CHECK-NEXT:        %[[ROWN:.*]] = arith.addi %[[ROW]], %[[CARRY]] : index
// CHECK-NEXT:        scf.yield %[[ROWN]], %[[COLN]] : index, index
// CHECK-NOT:         arith.divui
module @attnc_kernels {
  func.func @cast(%in: memref<?x8xf16, strided<[?, ?], offset: ?>>,
                  %out: memref<?x8xbf16, strided<[?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %in : memref<?x8xf16, strided<[?, ?], offset: ?>> to tensor<?x8xf16>
    %1 = attn.cast %0 {scale = 0.5 : f32, block_size = 100 : i64} : tensor<?x8xf16> to tensor<?x8xbf16>
    bufferization.materialize_in_destination %1 in writable %out : (tensor<?x8xbf16>, memref<?x8xbf16, strided<[?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// An elementwise kernel: the same blocks. While every buffer is dense and
// starts at a 16-byte boundary (checked per block), a block runs in chunks
// of 8 elements of the flattened buffers: one vector load per input (widened
// to f32), the body inlined per element, one vector store per result. The
// rest of the block runs element by element as a cast does: each input
// element widened to f32, the body inlined and its value rounded once.

// CHECK-LABEL: func.func @elementwise(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<?x8xbf16, strided<[?, ?], offset: ?>>,
// CHECK-SAME:    %[[Y:[a-z0-9]+]]: memref<?x8xf32, strided<[?, ?], offset: ?>>,
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<?x8xbf16, strided<[?, ?], offset: ?>>)
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[C16:.*]] = arith.constant 16 : index
// CHECK:         scf.forall
// CHECK:           %[[FIRST:.*]] = arith.muli
// CHECK:           memref.extract_aligned_pointer_as_index %[[X]]
// CHECK:           arith.remui %{{.*}}, %[[C16]] : index
// CHECK:           memref.extract_aligned_pointer_as_index %[[Y]]
// CHECK:           memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK:           %[[SPLIT:.*]] = arith.select %{{.*}}, %{{.*}}, %[[FIRST]] : index
// CHECK:           scf.for %[[P:.*]] = %[[FIRST]] to %[[SPLIT]] step %[[C8]] {
// CHECK:             %[[XV:.*]] = memref.reinterpret_cast %[[X]] to offset: [%{{.*}}], sizes: [%{{.*}}], strides: [1]
// CHECK:             %[[XC:.*]] = vector.load %[[XV]][%[[P]]] {alignment = 16 : i64} : memref<?xbf16, strided<[1], offset: ?>>, vector<8xbf16>
// CHECK:             %[[XW:.*]] = arith.extf %[[XC]] : vector<8xbf16> to vector<8xf32>
// CHECK:             %[[YC:.*]] = vector.load %{{.*}}[%[[P]]] {alignment = 16 : i64} : memref<?xf32, strided<[1], offset: ?>>, vector<8xf32>
// CHECK:             %[[X0:.*]] = vector.extract %[[XW]][0] : f32 from vector<8xf32>
// CHECK:             %[[Y0:.*]] = vector.extract %[[YC]][0] : f32 from vector<8xf32>
// CHECK:             %[[T0:.*]] = math.tanh %[[X0]] : f32
// CHECK:             %[[M0:.*]] = arith.mulf %[[T0]], %[[Y0]] : f32
// CHECK-COUNT-7:     math.tanh
// CHECK:             %[[OV:.*]] = memref.reinterpret_cast %[[OUT]]
// CHECK:             %[[R:.*]] = vector.from_elements %[[M0]], {{.*}} : vector<8xf32>
// CHECK:             %[[RN:.*]] = arith.truncf %[[R]] : vector<8xf32> to vector<8xbf16>
// CHECK:             vector.store %[[RN]], %[[OV]][%[[P]]] {alignment = 16 : i64}
// CHECK:           scf.for %{{.*}} = %[[SPLIT]] to %{{.*}} iter_args(%[[ROW:.*]] = %{{.*}}, %[[COL:.*]] = %{{.*}}) -> (index, index) {
// CHECK-NEXT:        %[[A:.*]] = memref.load %[[X]][%[[ROW]], %[[COL]]]
// CHECK-NEXT:        %[[AW:.*]] = arith.extf %[[A]] : bf16 to f32
// CHECK-NEXT:        %[[B:.*]] = memref.load %[[Y]][%[[ROW]], %[[COL]]]
// CHECK-NEXT:        %[[T:.*]] = math.tanh %[[AW]] : f32
// CHECK-NEXT:        %[[M:.*]] = arith.mulf %[[T]], %[[B]] : f32
// CHECK-NEXT:        %[[RS:.*]] = arith.truncf %[[M]] : f32 to bf16
// CHECK-NEXT:        memref.store %[[RS]], %[[OUT]][%[[ROW]], %[[COL]]]
module @attnc_kernels {
  func.func @elementwise(%x: memref<?x8xbf16, strided<[?, ?], offset: ?>>,
                         %y: memref<?x8xf32, strided<[?, ?], offset: ?>>,
                         %out: memref<?x8xbf16, strided<[?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %x : memref<?x8xbf16, strided<[?, ?], offset: ?>> to tensor<?x8xbf16>
    %1 = bufferization.to_tensor %y : memref<?x8xf32, strided<[?, ?], offset: ?>> to tensor<?x8xf32>
    %2 = attn.elementwise %0, %1 {block_size = 64 : i64} : tensor<?x8xbf16>, tensor<?x8xf32> -> tensor<?x8xbf16> {
    ^bb0(%a: f32, %b: f32):
      %t = math.tanh %a : f32
      %m = arith.mulf %t, %b : f32
      attn.yield %m : f32
    }
    bufferization.materialize_in_destination %2 in writable %out : (tensor<?x8xbf16>, memref<?x8xbf16, strided<[?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// An identity cast (the copy of a returned argument) is a kernel too: it
// does not fold away, and copies element by element. A grid of one block
// is no loop.

// CHECK-LABEL: func.func @copy(
// CHECK-SAME:    %[[IN:[a-z0-9]+]]: memref<4x4xf32, strided<[?, ?], offset: ?>>,
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<4x4xf32, strided<[?, ?], offset: ?>>)
// CHECK-NOT:     scf.forall
// CHECK:         scf.for
// CHECK:           %[[X:.*]] = memref.load %[[IN]]
// CHECK-NEXT:      memref.store %[[X]], %[[OUT]]
module @attnc_kernels {
  func.func @copy(%in: memref<4x4xf32, strided<[?, ?], offset: ?>>,
                  %out: memref<4x4xf32, strided<[?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %in : memref<4x4xf32, strided<[?, ?], offset: ?>> to tensor<4x4xf32>
    %1 = attn.cast %0 {block_size = 16384 : i64} : tensor<4x4xf32> to tensor<4x4xf32>
    bufferization.materialize_in_destination %1 in writable %out : (tensor<4x4xf32>, memref<4x4xf32, strided<[?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// A matmul: a grid of (column tiles, row tiles) of out's matrix view, its
// rows the product of the leading dims. Each row is a multi-index computed
// once; a weight [K, N] is read along its rows into an f32 accumulator row
// that is rounded once at the end.

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<?x?x16xbf16, strided<[?, ?, ?], offset: ?>>,
// CHECK-SAME:    %[[W:[a-z0-9]+]]: memref<16x24xbf16, strided<[?, ?], offset: ?>>,
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<?x?x24xbf16, strided<[?, ?, ?], offset: ?>>)
// CHECK-DAG:     %[[B:.*]] = memref.dim %[[OUT]], %c0
// CHECK-DAG:     %[[N:.*]] = memref.dim %[[OUT]], %c1
// CHECK:         %[[ROWS:.*]] = arith.muli %[[B]], %[[N]] : index
// CHECK:         %[[ROW_TILES:.*]] = arith.ceildivui %[[ROWS]], %c4 : index
// CHECK:         scf.forall (%[[CT:.*]], %[[RT:.*]]) in (3, %[[ROW_TILES]]) {
// CHECK:           %[[ACC:.*]] = memref.alloc() : memref<8xf32>
// CHECK:           scf.for %[[I:.*]] = %c0 to %{{.*}} step %c1 {
// CHECK:             %[[ROW:.*]] = arith.addi %{{.*}}, %[[I]] : index
// CHECK:             %[[N2:.*]] = memref.dim %[[X]], %c1
// CHECK-NEXT:        %[[R1:.*]] = arith.remui %[[ROW]], %[[N2]] : index
// CHECK-NEXT:        %[[R0:.*]] = arith.divui %[[ROW]], %[[N2]] : index
// CHECK:             scf.for %[[L:.*]] = %c0 to %c16 step %c1 {
// CHECK-NEXT:          %[[XV:.*]] = memref.load %[[X]][%[[R0]], %[[R1]], %[[L]]]
// CHECK-NEXT:          %[[XW:.*]] = arith.extf %[[XV]] : bf16 to f32
// CHECK-NEXT:          scf.for %[[J:.*]] = %c0 to %{{.*}} step %c1 {
// CHECK-NEXT:            %[[COL:.*]] = arith.addi %{{.*}}, %[[J]] : index
// CHECK-NEXT:            %[[WV:.*]] = memref.load %[[W]][%[[L]], %[[COL]]]
// CHECK-NEXT:            %[[WW:.*]] = arith.extf %[[WV]] : bf16 to f32
// CHECK-NEXT:            %[[P:.*]] = arith.mulf %[[XW]], %[[WW]] : f32
// CHECK-NEXT:            %[[A:.*]] = memref.load %[[ACC]][%[[J]]]
// CHECK-NEXT:            %[[S:.*]] = arith.addf %[[A]], %[[P]] : f32
// CHECK-NEXT:            memref.store %[[S]], %[[ACC]][%[[J]]]
// CHECK:             scf.for %[[J2:.*]] = %c0 to %{{.*}} step %c1 {
// CHECK:               %[[V:.*]] = memref.load %[[ACC]][%[[J2]]]
// CHECK-NEXT:          %[[T:.*]] = arith.truncf %[[V]] : f32 to bf16
// CHECK-NEXT:          memref.store %[[T]], %[[OUT]][%[[R0]], %[[R1]], %{{.*}}]
// CHECK:           memref.dealloc %[[ACC]]
module @attnc_kernels {
  func.func @matmul(%x: memref<?x?x16xbf16, strided<[?, ?, ?], offset: ?>>,
                    %w: memref<16x24xbf16, strided<[?, ?], offset: ?>>,
                    %out: memref<?x?x24xbf16, strided<[?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %x : memref<?x?x16xbf16, strided<[?, ?, ?], offset: ?>> to tensor<?x?x16xbf16>
    %1 = bufferization.to_tensor %w : memref<16x24xbf16, strided<[?, ?], offset: ?>> to tensor<16x24xbf16>
    %2 = attn.matmul %0, %1 {tile = array<i64: 4, 8>} : tensor<?x?x16xbf16>, tensor<16x24xbf16> -> tensor<?x?x24xbf16>
    bufferization.materialize_in_destination %2 in writable %out : (tensor<?x?x24xbf16>, memref<?x?x24xbf16, strided<[?, ?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// A weight [N, K]: dot products along K, both operands contiguous there.

// CHECK-LABEL: func.func @matmul_nk(
// CHECK-NOT:     memref.alloc
// CHECK:         %[[DOT:.*]] = scf.for %{{.*}} = %c0 to %c16 step %c1 iter_args(%[[SUM:.*]] = %{{.*}}) -> (f32) {
// CHECK:           %[[P:.*]] = arith.mulf
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[SUM]], %[[P]] : f32
// CHECK-NEXT:      scf.yield %[[S]] : f32
// CHECK:         memref.store %[[DOT]]
module @attnc_kernels {
  func.func @matmul_nk(%x: memref<?x16xf32, strided<[?, ?], offset: ?>>,
                       %w: memref<24x16xf32, strided<[?, ?], offset: ?>>,
                       %out: memref<?x24xf32, strided<[?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %x : memref<?x16xf32, strided<[?, ?], offset: ?>> to tensor<?x16xf32>
    %1 = bufferization.to_tensor %w : memref<24x16xf32, strided<[?, ?], offset: ?>> to tensor<24x16xf32>
    %2 = attn.matmul %0, %1 {transpose_b, tile = array<i64: 4, 8>} : tensor<?x16xf32>, tensor<24x16xf32> -> tensor<?x24xf32>
    bufferization.materialize_in_destination %2 in writable %out : (tensor<?x24xf32>, memref<?x24xf32, strided<[?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// A row contraction: the shared rows outermost, each a rank-1 update of
// the whole [rows, columns] accumulator tile.

// CHECK-LABEL: func.func @contract_rows(
// CHECK-SAME:    %[[A:[a-z0-9]+]]: memref<?x8xbf16, strided<[?, ?], offset: ?>>,
// CHECK-SAME:    %[[B:[a-z0-9]+]]: memref<?x12xbf16, strided<[?, ?], offset: ?>>,
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<8x12xf32, strided<[?, ?], offset: ?>>)
// CHECK:         scf.forall (%{{.*}}, %{{.*}}) in (2, 2) {
// CHECK:           %[[ACC:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK:           %[[R:.*]] = memref.dim %[[A]], %c0
// CHECK:           scf.for %[[ROW:.*]] = %c0 to %[[R]] step %c1 {
// CHECK:             scf.for %[[I:.*]] = %c0 to %{{.*}} step %c1 {
// CHECK:               memref.load %[[A]][%[[ROW]], %{{.*}}]
// CHECK:               scf.for %[[J:.*]] = %c0 to %{{.*}} step %c1 {
// CHECK:                 memref.load %[[B]][%[[ROW]], %{{.*}}]
// CHECK:                 memref.store %{{.*}}, %[[ACC]][%[[I]], %[[J]]]
// CHECK:           memref.store %{{.*}}, %[[OUT]]
// CHECK:           memref.dealloc %[[ACC]]
module @attnc_kernels {
  func.func @contract_rows(%a: memref<?x8xbf16, strided<[?, ?], offset: ?>>,
                           %b: memref<?x12xbf16, strided<[?, ?], offset: ?>>,
                           %out: memref<8x12xf32, strided<[?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %a : memref<?x8xbf16, strided<[?, ?], offset: ?>> to tensor<?x8xbf16>
    %1 = bufferization.to_tensor %b : memref<?x12xbf16, strided<[?, ?], offset: ?>> to tensor<?x12xbf16>
    %2 = attn.matmul %0, %1 {transpose_a, tile = array<i64: 4, 8>} : tensor<?x8xbf16>, tensor<?x12xbf16> -> tensor<8x12xf32>
    bufferization.materialize_in_destination %2 in writable %out : (tensor<8x12xf32>, memref<8x12xf32, strided<[?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// RMSNorm's gradient: a block per partial row p on the host, which it
// zeroes and then fills from rows p, p + P, ...: per row the sum of
// dout * weight * x, then dx and the partial sums column by column. Where
// every buffer is dense and 16-byte aligned, 8 columns at a time as
// vectors (one chunk of a row of 8); otherwise one by one.

// CHECK-LABEL: func.func @rms_norm_grad(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<?x8xf32, {{.*}}>, %[[W:[a-z0-9]+]]: memref<8xf32, {{.*}}>, %[[R:[a-z0-9]+]]: memref<?xf32, {{.*}}>, %[[DY:[a-z0-9]+]]: memref<?x8xf32, {{.*}}>, %[[DX:[a-z0-9]+]]: memref<?x8xf32, {{.*}}>, %[[DWP:[a-z0-9]+]]: memref<4x8xf32, {{.*}}>)
// CHECK:         scf.forall (%{{.*}}) in (4) {
// CHECK:           scf.if %{{.*}} {
// CHECK:             %[[VX:.*]] = memref.reinterpret_cast %[[X]]
// CHECK:             %[[VDWP:.*]] = memref.reinterpret_cast %[[DWP]]
// CHECK:             %[[VP:.*]] = arith.addi
// CHECK-NEXT:        vector.store %{{.*}}, %[[VDWP]][%[[VP]], %c0] {alignment = 16 : i64} : {{.*}}, vector<8xf32>
// CHECK:             scf.for %[[VROW:.*]] = %[[VP]] to %{{.*}} step %c4 {
// CHECK:               vector.load %[[VX]][%[[VROW]], %c0] {alignment = 16 : i64} : {{.*}}, vector<8xf32>
// CHECK:               vector.reduction <add>, %{{.*}} : vector<8xf32> into f32
// CHECK:               %[[VOLD:.*]] = vector.load %[[VDWP]][%[[VP]], %c0]
// CHECK-NEXT:          %[[VNEW:.*]] = arith.addf %[[VOLD]], %{{.*}} : vector<8xf32>
// CHECK-NEXT:          vector.store %[[VNEW]], %[[VDWP]][%[[VP]], %c0]
// CHECK:           } else {
// CHECK:           %[[P:.*]] = arith.addi
// CHECK:           scf.for %[[D0:.*]] = %c0 to %c8 step %c1 {
// CHECK-NEXT:        memref.store %{{.*}}, %[[DWP]][%[[P]], %[[D0]]]
// CHECK:           %[[ROWS:.*]] = memref.dim %[[X]], %c0
// CHECK-NEXT:      scf.for %[[ROW:.*]] = %[[P]] to %[[ROWS]] step %c4 {
// CHECK-NEXT:        %[[RSTD:.*]] = memref.load %[[R]][%[[ROW]]]
// CHECK:             %[[DOT:.*]] = scf.for {{.*}} -> (f32) {
// CHECK:             scf.for %[[D:.*]] = %c0 to %c8 step %c1 {
// CHECK:               memref.store %{{.*}}, %[[DX]][%[[ROW]], %[[D]]]
// CHECK:               %[[OLD:.*]] = memref.load %[[DWP]][%[[P]], %[[D]]]
// CHECK-NEXT:          %[[NEW:.*]] = arith.addf %[[OLD]], %{{.*}} : f32
// CHECK-NEXT:          memref.store %[[NEW]], %[[DWP]][%[[P]], %[[D]]]
module @attnc_kernels {
  func.func @rms_norm_grad(%x: memref<?x8xf32, strided<[?, ?], offset: ?>>,
                           %w: memref<8xf32, strided<[?], offset: ?>>,
                           %r: memref<?xf32, strided<[?], offset: ?>>,
                           %dy: memref<?x8xf32, strided<[?, ?], offset: ?>>,
                           %dx: memref<?x8xf32, strided<[?, ?], offset: ?>>,
                           %dwp: memref<4x8xf32, strided<[?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %x : memref<?x8xf32, strided<[?, ?], offset: ?>> to tensor<?x8xf32>
    %1 = bufferization.to_tensor %w : memref<8xf32, strided<[?], offset: ?>> to tensor<8xf32>
    %2 = bufferization.to_tensor %r : memref<?xf32, strided<[?], offset: ?>> to tensor<?xf32>
    %3 = bufferization.to_tensor %dy : memref<?x8xf32, strided<[?, ?], offset: ?>> to tensor<?x8xf32>
    %4, %5 = attn.rms_norm_grad %0, %1, %2, %3 {block_size = 1 : i64} : tensor<?x8xf32>, tensor<8xf32>, tensor<?xf32>, tensor<?x8xf32> -> tensor<?x8xf32>, tensor<4x8xf32>
    bufferization.materialize_in_destination %4 in writable %dx : (tensor<?x8xf32>, memref<?x8xf32, strided<[?, ?], offset: ?>>) -> ()
    bufferization.materialize_in_destination %5 in writable %dwp : (tensor<4x8xf32>, memref<4x8xf32, strided<[?, ?], offset: ?>>) -> ()
    return
  }
}
