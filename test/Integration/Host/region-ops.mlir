// Every op of the region op table (lib/semantics/RegionOps.def) in a score
// or a mask region, run against the fp64 reference: the verifier, the
// reference evaluator, the tile classifier and the kernels all read the same
// table, so an op one of them lacks fails here. Discontinuous float ops
// (floor, ceil, remf, fptosi, cmpf) only see exact values derived from the
// indices, so that the f32 kernels and the fp64 reference agree on them;
// the float math sees the score itself. scripts/gpu-integration.sh runs the
// same cases on sm_90a (scalar, wgmma and mma.sync kernels).
//
// RUN: attnc %s -o %t.attnpkg
// RUN: attn-run %t.attnpkg --fn score_ops --shape Nq=200 --shape Nk=333 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn mask_ops --shape Nq=300 --shape Nk=300 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn mask_ops --shape Nq=70 --shape Nk=500 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn wide_shifts --shape Nq=100 --shape Nk=130 --check | FileCheck %s

// CHECK: seed:
// CHECK: out: rel_err {{.*}} ok
// CHECK-NEXT: lse: rel_err {{.*}} ok

!t = tensor<1x2x?x64xf32>
!lse = tensor<1x2x?xf32>

func.func @score_ops(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v {tiles = #attn.tiles<block_m = 16, block_n = 32>}
      : !t, !t, !t -> !t, !lse
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %zero = arith.constant 0.0 : f32
      %quarter = arith.constant 0.25 : f32
      // Smooth functions of the score.
      %a = math.tanh %s : f32
      %e = math.exp %a : f32
      %e2 = math.exp2 %a : f32
      %em = math.expm1 %a : f32
      %ln = math.log %e : f32
      %l2 = math.log2 %e2 : f32
      %abs = math.absf %a : f32
      %lp = math.log1p %abs : f32
      %erf = math.erf %s : f32
      %sin = math.sin %s : f32
      %cos = math.cos %s : f32
      %atan = math.atan %s : f32
      %sqrt = math.sqrt %e : f32
      %rsqrt = math.rsqrt %e : f32
      %pow = math.powf %e, %a : f32
      %sign = math.copysign %sin, %em : f32
      %fma = math.fma %a, %e, %em : f32
      %t0 = arith.maximumf %sin, %cos : f32
      %t1 = arith.minimumf %sin, %cos : f32
      %t2 = arith.maxnumf %erf, %atan : f32
      %t3 = arith.minnumf %erf, %atan : f32
      %t4 = arith.divf %t0, %e : f32
      %t5 = arith.mulf %t1, %t2 : f32
      %t6 = arith.subf %t3, %ln : f32
      %t7 = arith.negf %l2 : f32
      %pos = arith.cmpf ogt, %s, %zero : f32
      %relu = arith.select %pos, %s, %zero : f32
      // The score in f64 and back.
      %wide = arith.extf %s : f32 to f64
      %wide2 = arith.mulf %wide, %wide : f64
      %sq = arith.truncf %wide2 : f64 to f32
      // Exact index arithmetic in float: remf, floor, ceil, f16 round trips
      // and float-to-int conversions of small whole numbers.
      %qi64 = arith.index_cast %qi : index to i64
      %ki64 = arith.index_castui %ki : index to i64
      %qf = arith.sitofp %qi64 : i64 to f32
      %kf = arith.uitofp %ki64 : i64 to f32
      %c7 = arith.constant 7.0 : f32
      %c3 = arith.constant 3.0 : f32
      %r7 = arith.remf %qf, %c7 : f32
      %q3 = arith.divf %qf, %c3 : f32
      %fl = math.floor %q3 : f32
      %k3 = arith.divf %kf, %c3 : f32
      %ce = math.ceil %k3 : f32
      %half = arith.truncf %r7 : f32 to f16
      %back = arith.extf %half : f16 to f32
      %fi = arith.fptosi %fl : f32 to i32
      %cu = arith.fptoui %ce : f32 to i32
      %diff = arith.subi %fi, %cu : i32
      %df = arith.sitofp %diff : i32 to f32
      %step = arith.constant 0.01 : f32
      %bias = arith.mulf %df, %step : f32
      %rbias = arith.mulf %back, %step : f32
      // Sum the terms, each weighted so the score stays O(1).
      %u0 = arith.addf %em, %lp : f32
      %u1 = arith.addf %u0, %sqrt : f32
      %u2 = arith.addf %u1, %rsqrt : f32
      %u3 = arith.addf %u2, %pow : f32
      %u4 = arith.addf %u3, %sign : f32
      %u5 = arith.addf %u4, %fma : f32
      %u6 = arith.addf %u5, %t4 : f32
      %u7 = arith.addf %u6, %t5 : f32
      %u8 = arith.addf %u7, %t6 : f32
      %u9 = arith.addf %u8, %t7 : f32
      %u10 = arith.addf %u9, %relu : f32
      %u11 = arith.addf %u10, %sq : f32
      %u12 = arith.mulf %u11, %quarter : f32
      %u13 = arith.addf %u12, %bias : f32
      %u14 = arith.addf %u13, %rbias : f32
      %r = arith.addf %s, %u14 : f32
      attn.yield %r : f32
    }
  return %o, %l : !t, !lse
}

// A keep-set built from every integer op: key 0, or within a window of the
// diagonal in the same 64-block, or a key of the right residues and parity.
func.func @mask_ops(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v {tiles = #attn.tiles<block_m = 16, block_n = 32>}
      : !t, !t, !t -> !t, !lse
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c5 = arith.constant 5 : index
      %c7 = arith.constant 7 : index
      %c40 = arith.constant 40 : index
      %c64 = arith.constant 64 : index
      // Key 0 (min(qi, 0) == 0) is always kept: no row is empty.
      %lo = arith.minsi %qi, %c0 : index
      %first = arith.cmpi eq, %ki, %lo : index
      // |qi - ki| <= 40 within the same 64-block.
      %d = arith.subi %qi, %ki : index
      %ad = math.absi %d : index
      %near = arith.cmpi sle, %ad, %c40 : index
      %qb = arith.floordivsi %qi, %c64 : index
      %kb = arith.divsi %ki, %c64 : index
      %same = arith.cmpi eq, %qb, %kb : index
      %band = arith.andi %near, %same : i1
      // Keys with ki % 7 == qi % 5 (remsi, remui), before ceil(qi / 2) + 1
      // (ceildivsi, addi), with the parity of qi (xori, muli, divui).
      %kr = arith.remsi %ki, %c7 : index
      %qr = arith.remui %qi, %c5 : index
      %res = arith.cmpi eq, %kr, %qr : index
      %qh = arith.ceildivsi %qi, %c2 : index
      %limit = arith.addi %qh, %c1 : index
      %before = arith.cmpi slt, %ki, %limit : index
      %kh = arith.divui %ki, %c2 : index
      %k2 = arith.muli %kh, %c2 : index
      %kpar = arith.subi %ki, %k2 : index
      %qpar = arith.remui %qi, %c2 : index
      %x = arith.xori %kpar, %qpar : index
      %parity = arith.cmpi eq, %x, %c0 : index
      %pick0 = arith.andi %res, %before : i1
      %pick = arith.andi %pick0, %parity : i1
      // The same band again through i32/i64 shifts, extensions and unsigned
      // min/max: (qi >> 1) << 1 == qi & ~1, and max/min agree on order.
      %q32 = arith.index_cast %qi : index to i32
      %k32 = arith.index_castui %ki : index to i32
      %one = arith.constant 1 : i32
      %m1 = arith.constant -2 : i32
      %qs = arith.shrsi %q32, %one : i32
      %qu = arith.shrui %q32, %one : i32
      %qss = arith.shli %qs, %one : i32
      %qm = arith.andi %q32, %m1 : i32
      %sh_ok = arith.cmpi eq, %qss, %qm : i32
      %qu64 = arith.extui %qu : i32 to i64
      %qs64 = arith.extsi %qs : i32 to i64
      %shr_ok = arith.cmpi eq, %qu64, %qs64 : i64
      %maxu = arith.maxui %q32, %k32 : i32
      %minu = arith.minui %q32, %k32 : i32
      %maxs = arith.maxsi %q32, %k32 : i32
      %u_ok = arith.cmpi eq, %maxu, %maxs : i32
      %lo16 = arith.trunci %minu : i32 to i16
      %lo16e = arith.extsi %lo16 : i16 to i32
      %t_ok = arith.cmpi eq, %lo16e, %minu : i32
      %ok0 = arith.andi %sh_ok, %shr_ok : i1
      %ok1 = arith.andi %ok0, %u_ok : i1
      %ok2 = arith.andi %ok1, %t_ok : i1
      // A float comparison of whole numbers: ki <= 2 * qi + 1.
      %qf = arith.sitofp %q32 : i32 to f32
      %kf = arith.uitofp %k32 : i32 to f32
      %twice = arith.addf %qf, %qf : f32
      %onef = arith.constant 1.0 : f32
      %bound = arith.addf %twice, %onef : f32
      %inside = arith.cmpf ole, %kf, %bound : f32
      %sel = arith.select %inside, %pick, %band : i1
      %any0 = arith.ori %first, %band : i1
      %any1 = arith.ori %any0, %sel : i1
      %keep = arith.andi %any1, %ok2 : i1
      attn.yield %keep : i1
    }
  return %o, %l : !t, !lse
}

// Shift amounts that reach and pass the bit width (k_idx up to 129 against
// i32's 32 and index's 64 bits): attnc defines them as shifting every bit
// out, 0 or the sign, where MLIR leaves them undefined.
func.func @wide_shifts(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v : !t, !t, !t -> !t, !lse
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %c0 = arith.constant 0 : index
      %c0_i32 = arith.constant 0 : i32
      %minus = arith.constant -5 : i32
      %ones = arith.constant 1 : index
      %k32 = arith.index_cast %ki : index to i32
      %wide = arith.shli %ones, %ki : index
      %some = arith.cmpi ne, %wide, %c0 : index
      %neg = arith.shrsi %minus, %k32 : i32
      %sign = arith.cmpi slt, %neg, %c0_i32 : i32
      %qk = arith.addi %qi, %ki : index
      %out = arith.shrui %qk, %qi : index
      %odd = arith.cmpi ne, %out, %c0 : index
      %a = arith.andi %some, %sign : i1
      %m = arith.ori %a, %odd : i1
      attn.yield %m : i1
    }
  return %o, %l : !t, !lse
}
