// RUN: attn-opt %s -split-input-file -attn-narrow-region-indices | FileCheck %s

// ALiBi's distance: indices below 2^31 (dynamic extents) differ by less
// than 2^31, so the subtraction and its conversion take 32 bits; the
// head's index + 1 is non-negative and converts unsigned.
// CHECK-LABEL: func.func @alibi
// CHECK:       score {
// CHECK-NEXT:  ^bb0(%{{.+}}: f32, %{{.+}}: index, %[[H:.+]]: index, %[[QI:.+]]: index, %[[KI:.+]]: index):
// CHECK-DAG:     %[[ONE:.+]] = arith.constant 1 : i32
// CHECK-DAG:     %[[H32:.+]] = arith.index_castui %[[H]] : index to i32
// CHECK:         %[[H1:.+]] = arith.addi %[[H32]], %[[ONE]] : i32
// CHECK-NEXT:    arith.uitofp %[[H1]] : i32 to f32
// CHECK:         %[[Q32:.+]] = arith.index_castui %[[QI]] : index to i32
// CHECK-NEXT:    %[[K32:.+]] = arith.index_castui %[[KI]] : index to i32
// CHECK-NEXT:    %[[D:.+]] = arith.subi %[[Q32]], %[[K32]] : i32
// CHECK-NEXT:    arith.sitofp %[[D]] : i32 to f32
// CHECK-NOT:     : index
// CHECK:         attn.yield
func.func @alibi(%q: tensor<?x16x?x64xbf16>, %k: tensor<?x16x?x64xbf16>,
                 %v: tensor<?x16x?x64xbf16>)
    -> (tensor<?x16x?x64xbf16>, tensor<?x16x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {causal}
      : tensor<?x16x?x64xbf16>, tensor<?x16x?x64xbf16>, tensor<?x16x?x64xbf16>
      -> tensor<?x16x?x64xbf16>, tensor<?x16x?xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %one = arith.constant 1 : index
      %half = arith.constant -0.5 : f32
      %h1 = arith.addi %h, %one : index
      %h1i = arith.index_cast %h1 : index to i64
      %h1f = arith.sitofp %h1i : i64 to f32
      %exponent = arith.mulf %h1f, %half : f32
      %slope = math.exp2 %exponent : f32
      %dist = arith.subi %qi, %ki : index
      %disti = arith.index_cast %dist : index to i64
      %distf = arith.sitofp %disti : i64 to f32
      %bias = arith.mulf %slope, %distf : f32
      %r = arith.subf %s, %bias : f32
      attn.yield %r : f32
    }
  return %o, %l : tensor<?x16x?x64xbf16>, tensor<?x16x?xf32>
}

// -----

// A product of two dynamic indices may pass 2^31 and stays in index; with
// static extents of 128 and 256 queries and keys it fits 32 bits.
// CHECK-LABEL: func.func @dynamic_product
// CHECK:         arith.muli %{{.+}}, %{{.+}} : index
// CHECK-NEXT:    arith.index_cast %{{.+}} : index to i64
// CHECK-NEXT:    arith.sitofp %{{.+}} : i64 to f32
// CHECK-LABEL: func.func @static_product
// CHECK:         %[[Q32:.+]] = arith.index_castui %{{.+}} : index to i32
// CHECK-NEXT:    %[[K32:.+]] = arith.index_castui %{{.+}} : index to i32
// CHECK-NEXT:    %[[P:.+]] = arith.muli %[[Q32]], %[[K32]] : i32
// CHECK-NEXT:    arith.uitofp %[[P]] : i32 to f32
func.func @dynamic_product(%q: tensor<?x4x?x64xf32>, %k: tensor<?x4x?x64xf32>,
                           %v: tensor<?x4x?x64xf32>)
    -> (tensor<?x4x?x64xf32>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
      : tensor<?x4x?x64xf32>, tensor<?x4x?x64xf32>, tensor<?x4x?x64xf32>
      -> tensor<?x4x?x64xf32>, tensor<?x4x?xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %p = arith.muli %qi, %ki : index
      %pi = arith.index_cast %p : index to i64
      %pf = arith.sitofp %pi : i64 to f32
      %r = arith.addf %s, %pf : f32
      attn.yield %r : f32
    }
  return %o, %l : tensor<?x4x?x64xf32>, tensor<?x4x?xf32>
}

func.func @static_product(%q: tensor<2x4x128x64xf32>,
                          %k: tensor<2x4x256x64xf32>,
                          %v: tensor<2x4x256x64xf32>)
    -> (tensor<2x4x128x64xf32>, tensor<2x4x128xf32>) {
  %o, %l = attn.attention %q, %k, %v
      : tensor<2x4x128x64xf32>, tensor<2x4x256x64xf32>, tensor<2x4x256x64xf32>
      -> tensor<2x4x128x64xf32>, tensor<2x4x128xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %p = arith.muli %qi, %ki : index
      %pi = arith.index_cast %p : index to i64
      %pf = arith.sitofp %pi : i64 to f32
      %r = arith.addf %s, %pf : f32
      attn.yield %r : f32
    }
  return %o, %l : tensor<2x4x128x64xf32>, tensor<2x4x128xf32>
}

// -----

// Mask regions keep index (the tile classifier bounds index and i64
// values only).
// CHECK-LABEL: func.func @window
// CHECK:       mask {
// CHECK-NEXT:  ^bb0(%{{.+}}: index, %{{.+}}: index, %[[QI:.+]]: index, %[[KI:.+]]: index):
// CHECK-NEXT:    %[[W:.+]] = arith.constant 256 : index
// CHECK-NEXT:    %[[D:.+]] = arith.subi %[[QI]], %[[KI]] : index
// CHECK-NEXT:    %[[NEAR:.+]] = arith.cmpi slt, %[[D]], %[[W]] : index
// CHECK-NEXT:    attn.yield %[[NEAR]] : i1
// CHECK-NEXT:  } score {
// CHECK:         arith.subi %{{.+}}, %{{.+}} : i32
func.func @window(%q: tensor<?x4x?x64xf32>, %k: tensor<?x4x?x64xf32>,
                  %v: tensor<?x4x?x64xf32>)
    -> (tensor<?x4x?x64xf32>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
      : tensor<?x4x?x64xf32>, tensor<?x4x?x64xf32>, tensor<?x4x?x64xf32>
      -> tensor<?x4x?x64xf32>, tensor<?x4x?xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %w = arith.constant 256 : index
      %d = arith.subi %qi, %ki : index
      %near = arith.cmpi slt, %d, %w : index
      attn.yield %near : i1
    } score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %d = arith.subi %qi, %ki : index
      %di = arith.index_cast %d : index to i64
      %df = arith.sitofp %di : i64 to f32
      %r = arith.subf %s, %df : f32
      attn.yield %r : f32
    }
  return %o, %l : tensor<?x4x?x64xf32>, tensor<?x4x?xf32>
}

// -----

// Gradient ops: the score and score_grad regions both narrow.
// CHECK-LABEL: func.func @gradient
// CHECK:       score {
// CHECK:         arith.subi %{{.+}}, %{{.+}} : i32
// CHECK:       score_grad {
// CHECK:         arith.subi %{{.+}}, %{{.+}} : i32
func.func @gradient(%q: tensor<?x2x?x16xf32>, %l: tensor<?x2x?xf32>) {
  %dq, %dk, %dv = attn.attention_grad %q, %q, %q, %q, %l, %q
      : tensor<?x2x?x16xf32>, tensor<?x2x?x16xf32>, tensor<?x2x?x16xf32>, tensor<?x2x?x16xf32>, tensor<?x2x?xf32>, tensor<?x2x?x16xf32>
      -> tensor<?x2x?x16xf32>, tensor<?x2x?x16xf32>, tensor<?x2x?x16xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %d = arith.subi %qi, %ki : index
      %di = arith.index_cast %d : index to i64
      %df = arith.sitofp %di : i64 to f32
      %r = arith.subf %s, %df : f32
      attn.yield %r : f32
    } score_grad {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %d = arith.subi %qi, %ki : index
      %di = arith.index_cast %d : index to i64
      %df = arith.sitofp %di : i64 to f32
      %one = arith.constant 1.0 : f32
      %r = arith.addf %one, %df : f32
      attn.yield %r : f32
    }
  return
}
