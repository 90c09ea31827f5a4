// RUN: attn-opt %s | attn-opt | FileCheck %s
// RUN: attn-opt %s --mlir-print-op-generic | attn-opt | FileCheck %s

// Round trip of every attngpu op and of the !attngpu.mbarrier type through
// the custom and the generic form.

//===----------------------------------------------------------------------===//
// Shared-memory tiles
//===----------------------------------------------------------------------===//

// Tiles carved out of the dynamic shared memory of a kernel: row-major,
// padded rows (a strided layout with stride > cols) and the 128-byte
// swizzle. The swizzle_bytes attribute is printed with its i64 type.
gpu.module @tiles {
  // CHECK-LABEL: gpu.func @shared_tiles(
  // CHECK-SAME: %[[OFF:[a-zA-Z0-9_]+]]: index)
  gpu.func @shared_tiles(%off: index) kernel {
    // CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    // CHECK: attngpu.shared_tile %[[SMEM]][%[[OFF]]] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>{{$}}
    // CHECK: attngpu.shared_tile %[[SMEM]][%[[OFF]]] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xbf16, strided<[72, 1]>, #gpu.address_space<workgroup>>{{$}}
    // CHECK: attngpu.shared_tile %[[SMEM]][%[[OFF]]] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x16xf32, strided<[16, 1]>, #gpu.address_space<workgroup>>{{$}}
    // CHECK: attngpu.shared_tile %[[SMEM]][%[[OFF]]] {swizzle_bytes = 128 : i64} : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x128xbf16, #gpu.address_space<workgroup>>{{$}}
    // CHECK: attngpu.shared_tile %[[SMEM]][%[[OFF]]] {swizzle_bytes = 128 : i64} : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>{{$}}
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %plain = attngpu.shared_tile %smem[%off]
        : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
    %padded = attngpu.shared_tile %smem[%off]
        : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xbf16, strided<[72, 1]>, #gpu.address_space<workgroup>>
    %dense = attngpu.shared_tile %smem[%off]
        : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x16xf32, strided<[16, 1]>, #gpu.address_space<workgroup>>
    %swizzled = attngpu.shared_tile %smem[%off] {swizzle_bytes = 128}
        : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x128xbf16, #gpu.address_space<workgroup>>
    %swizzled_f16 = attngpu.shared_tile %smem[%off] {swizzle_bytes = 128 : i64}
        : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
    gpu.return
  }
}

//===----------------------------------------------------------------------===//
// Warpgroup MMA
//===----------------------------------------------------------------------===//

// Descriptors of a swizzled and of an unswizzled tile, at the bounds of the
// leading and stride byte offsets (16 and 2^18 - 16).
// CHECK-LABEL: func @wgmma_descriptor(
// CHECK-SAME: %[[T:[a-zA-Z0-9_]+]]: memref<128x64xbf16, #gpu.address_space<workgroup>>, %[[U:[a-zA-Z0-9_]+]]: memref<64x16xf16, #gpu.address_space<workgroup>>, %[[OFF:[a-zA-Z0-9_]+]]: index)
func.func @wgmma_descriptor(%t: memref<128x64xbf16, #gpu.address_space<workgroup>>,
                            %u: memref<64x16xf16, #gpu.address_space<workgroup>>,
                            %off: index) -> (i64, i64) {
  // CHECK: %[[D0:.*]] = attngpu.wgmma.descriptor %[[T]][%[[OFF]]] {leading_bytes = 16 : i64, stride_bytes = 1024 : i64, swizzle_bytes = 128 : i64} : memref<128x64xbf16, #gpu.address_space<workgroup>>{{$}}
  // CHECK: %[[D1:.*]] = attngpu.wgmma.descriptor %[[U]][%[[OFF]]] {leading_bytes = 262128 : i64, stride_bytes = 16 : i64, swizzle_bytes = 0 : i64} : memref<64x16xf16, #gpu.address_space<workgroup>>{{$}}
  // CHECK: return %[[D0]], %[[D1]] : i64, i64
  %d0 = attngpu.wgmma.descriptor %t[%off] {leading_bytes = 16, stride_bytes = 1024, swizzle_bytes = 128}
      : memref<128x64xbf16, #gpu.address_space<workgroup>>
  %d1 = attngpu.wgmma.descriptor %u[%off] {leading_bytes = 262128, stride_bytes = 16, swizzle_bytes = 0}
      : memref<64x16xf16, #gpu.address_space<workgroup>>
  return %d0, %d1 : i64, i64
}

// An issue sequence: fence, a product with A from a descriptor and no
// accumulator, a product with A in registers onto an accumulator with B
// transposed, commits, and waits with and without values.
// CHECK-LABEL: func @wgmma_issue(
// CHECK-SAME: %[[DA:[a-zA-Z0-9_]+]]: i64, %[[DB:[a-zA-Z0-9_]+]]: i64, %[[ACC:[a-zA-Z0-9_]+]]: vector<64xf32>, %[[P0:[a-zA-Z0-9_]+]]: vector<4xi32>, %[[P1:[a-zA-Z0-9_]+]]: vector<4xi32>, %[[X:[a-zA-Z0-9_]+]]: f32)
func.func @wgmma_issue(%da: i64, %db: i64, %acc: vector<64xf32>, %p0: vector<4xi32>,
                       %p1: vector<4xi32>, %x: f32) -> (vector<64xf32>, vector<64xf32>, f32) {
  // CHECK: attngpu.wgmma.fence{{$}}
  // CHECK-NEXT: %[[S:.*]] = attngpu.wgmma.mma_async a_desc(%[[DA]]) b_desc(%[[DB]]) {a_offsets = array<i64: 0, 32>, b_offsets = array<i64: 0, 32>, element_type = bf16, n = 128 : i64} -> vector<64xf32>{{$}}
  // CHECK-NEXT: attngpu.wgmma.commit_group{{$}}
  // CHECK-NEXT: %[[O:.*]] = attngpu.wgmma.mma_async a_regs(%[[P0]], %[[P1]] : vector<4xi32>, vector<4xi32>) b_desc(%[[DB]]) acc(%[[ACC]] : vector<64xf32>) {b_offsets = array<i64: 0, 2048>, element_type = f16, n = 128 : i64, transpose_b} -> vector<64xf32>{{$}}
  // CHECK-NEXT: attngpu.wgmma.commit_group{{$}}
  // CHECK-NEXT: %[[W:.*]]:2 = attngpu.wgmma.wait_group 1{{ ?}}(%[[S]], %[[X]]) : vector<64xf32>, f32{{$}}
  // CHECK-NEXT: attngpu.wgmma.wait_group 0{{$}}
  // CHECK-NEXT: return %[[W]]#0, %[[O]], %[[W]]#1
  attngpu.wgmma.fence
  %s = attngpu.wgmma.mma_async a_desc(%da) b_desc(%db)
      {n = 128, element_type = bf16, a_offsets = array<i64: 0, 32>, b_offsets = array<i64: 0, 32>}
      -> vector<64xf32>
  attngpu.wgmma.commit_group
  %o = attngpu.wgmma.mma_async a_regs(%p0, %p1 : vector<4xi32>, vector<4xi32>) b_desc(%db)
      acc(%acc : vector<64xf32>)
      {n = 128, element_type = f16, b_offsets = array<i64: 0, 2048>, transpose_b}
      -> vector<64xf32>
  attngpu.wgmma.commit_group
  %s2, %x2 = attngpu.wgmma.wait_group 1 (%s, %x) : vector<64xf32>, f32
  attngpu.wgmma.wait_group 0
  return %s2, %o, %x2 : vector<64xf32>, vector<64xf32>, f32
}

// The other combinations of the optional parts of a product: A from a
// descriptor onto an accumulator with both transposed, A in registers without
// an accumulator; the smallest (n = 8) and largest (n = 256) products; the
// largest pending count.
// CHECK-LABEL: func @wgmma_product_forms(
// CHECK-SAME: %[[DA:[a-zA-Z0-9_]+]]: i64, %[[DB:[a-zA-Z0-9_]+]]: i64, %[[ACC:[a-zA-Z0-9_]+]]: vector<4xf32>, %[[P:[a-zA-Z0-9_]+]]: vector<4xi32>)
func.func @wgmma_product_forms(%da: i64, %db: i64, %acc: vector<4xf32>, %p: vector<4xi32>)
    -> (vector<4xf32>, vector<128xf32>) {
  // CHECK: %[[A:.*]] = attngpu.wgmma.mma_async a_desc(%[[DA]]) b_desc(%[[DB]]) acc(%[[ACC]] : vector<4xf32>) {a_offsets = array<i64: 16>, b_offsets = array<i64: 4096>, element_type = f16, n = 8 : i64, transpose_a, transpose_b} -> vector<4xf32>{{$}}
  // CHECK: %[[B:.*]] = attngpu.wgmma.mma_async a_regs(%[[P]] : vector<4xi32>) b_desc(%[[DB]]) {b_offsets = array<i64: 0>, element_type = bf16, n = 256 : i64} -> vector<128xf32>{{$}}
  // CHECK: attngpu.wgmma.commit_group
  // CHECK-NEXT: attngpu.wgmma.wait_group 7{{$}}
  // CHECK-NEXT: %[[W:.*]]:2 = attngpu.wgmma.wait_group 0{{ ?}}(%[[A]], %[[B]]) : vector<4xf32>, vector<128xf32>{{$}}
  // CHECK: return %[[W]]#0, %[[W]]#1
  %a = attngpu.wgmma.mma_async a_desc(%da) b_desc(%db) acc(%acc : vector<4xf32>)
      {n = 8, element_type = f16, a_offsets = array<i64: 16>, b_offsets = array<i64: 4096>, transpose_a, transpose_b}
      -> vector<4xf32>
  %b = attngpu.wgmma.mma_async a_regs(%p : vector<4xi32>) b_desc(%db)
      {n = 256, element_type = bf16, b_offsets = array<i64: 0>} -> vector<128xf32>
  attngpu.wgmma.commit_group
  attngpu.wgmma.wait_group 7
  %wa, %wb = attngpu.wgmma.wait_group 0 (%a, %b) : vector<4xf32>, vector<128xf32>
  return %wa, %wb : vector<4xf32>, vector<128xf32>
}

//===----------------------------------------------------------------------===//
// mbarriers
//===----------------------------------------------------------------------===//

// The mbarrier op on the dynamic shared memory and every operation on an
// mbarrier, one of them taken as a function argument of type
// !attngpu.mbarrier.
// CHECK-LABEL: func @mbarriers(
// CHECK-SAME: %[[SMEM:[a-zA-Z0-9_]+]]: memref<?xi8, #gpu.address_space<workgroup>>, %[[OFF:[a-zA-Z0-9_]+]]: index, %[[ARG:[a-zA-Z0-9_]+]]: !attngpu.mbarrier, %[[N:[a-zA-Z0-9_]+]]: i32, %[[PHASE:[a-zA-Z0-9_]+]]: i32)
// CHECK-SAME: -> !attngpu.mbarrier
func.func @mbarriers(%smem: memref<?xi8, #gpu.address_space<workgroup>>, %off: index,
                     %arg: !attngpu.mbarrier, %n: i32, %phase: i32) -> !attngpu.mbarrier {
  // CHECK: %[[B:.*]] = attngpu.mbarrier %[[SMEM]][%[[OFF]]] : memref<?xi8, #gpu.address_space<workgroup>>{{$}}
  // CHECK-NEXT: attngpu.mbarrier.init %[[B]], %[[N]]{{$}}
  // CHECK-NEXT: attngpu.mbarrier.fence_init{{$}}
  // CHECK-NEXT: attngpu.mbarrier.arrive %[[B]]{{$}}
  // CHECK-NEXT: attngpu.mbarrier.arrive_cp_async %[[ARG]]{{$}}
  // CHECK-NEXT: attngpu.mbarrier.arrive_expect_tx %[[B]], %[[N]]{{$}}
  // CHECK-NEXT: attngpu.mbarrier.wait %[[ARG]], %[[PHASE]]{{$}}
  // CHECK-NEXT: return %[[B]] : !attngpu.mbarrier
  %b = attngpu.mbarrier %smem[%off] : memref<?xi8, #gpu.address_space<workgroup>>
  attngpu.mbarrier.init %b, %n
  attngpu.mbarrier.fence_init
  attngpu.mbarrier.arrive %b
  attngpu.mbarrier.arrive_cp_async %arg
  attngpu.mbarrier.arrive_expect_tx %b, %n
  attngpu.mbarrier.wait %arg, %phase
  return %b : !attngpu.mbarrier
}

//===----------------------------------------------------------------------===//
// Async proxy, TMA, math
//===----------------------------------------------------------------------===//

// fence_proxy_async, TMA loads of one and of five coordinates (the bounds),
// a TMA store, and ex2.
// CHECK-LABEL: func @proxy_tma_ex2(
// CHECK-SAME: %[[MAP:[a-zA-Z0-9_]+]]: !llvm.ptr, %[[B:[a-zA-Z0-9_]+]]: !attngpu.mbarrier, %[[T:[a-zA-Z0-9_]+]]: memref<128x64xbf16, #gpu.address_space<workgroup>>, %[[F:[a-zA-Z0-9_]+]]: memref<64x32xf32, #gpu.address_space<workgroup>>, %[[I:[a-zA-Z0-9_]+]]: i32, %[[J:[a-zA-Z0-9_]+]]: i32, %[[X:[a-zA-Z0-9_]+]]: f32)
func.func @proxy_tma_ex2(%map: !llvm.ptr, %b: !attngpu.mbarrier,
                         %t: memref<128x64xbf16, #gpu.address_space<workgroup>>,
                         %f: memref<64x32xf32, #gpu.address_space<workgroup>>,
                         %i: i32, %j: i32, %x: f32) -> f32 {
  // CHECK: attngpu.fence_proxy_async{{$}}
  // CHECK-NEXT: attngpu.tma.load %[[MAP]][%[[I]], %[[J]]], %[[B]] to %[[T]] : !llvm.ptr, memref<128x64xbf16, #gpu.address_space<workgroup>>{{$}}
  // CHECK-NEXT: attngpu.tma.load %[[MAP]][%[[I]]], %[[B]] to %[[F]] : !llvm.ptr, memref<64x32xf32, #gpu.address_space<workgroup>>{{$}}
  // CHECK-NEXT: attngpu.tma.load %[[MAP]][%[[I]], %[[J]], %[[I]], %[[J]], %[[I]]], %[[B]] to %[[T]] : !llvm.ptr, memref<128x64xbf16, #gpu.address_space<workgroup>>{{$}}
  // CHECK-NEXT: attngpu.tma.store %[[T]] to %[[MAP]][%[[I]], %[[J]], %[[I]], %[[J]]] : memref<128x64xbf16, #gpu.address_space<workgroup>>, !llvm.ptr{{$}}
  // CHECK-NEXT: %[[E:.*]] = attngpu.ex2 %[[X]]{{$}}
  // CHECK-NEXT: return %[[E]] : f32
  attngpu.fence_proxy_async
  attngpu.tma.load %map[%i, %j], %b to %t : !llvm.ptr, memref<128x64xbf16, #gpu.address_space<workgroup>>
  attngpu.tma.load %map[%i], %b to %f : !llvm.ptr, memref<64x32xf32, #gpu.address_space<workgroup>>
  attngpu.tma.load %map[%i, %j, %i, %j, %i], %b to %t : !llvm.ptr, memref<128x64xbf16, #gpu.address_space<workgroup>>
  attngpu.tma.store %t to %map[%i, %j, %i, %j] : memref<128x64xbf16, #gpu.address_space<workgroup>>, !llvm.ptr
  %e = attngpu.ex2 %x
  return %e : f32
}

// The tensor map may live in another address space than the generic one
// (a __grid_constant__ parameter in global memory). The custom form prints
// that pointer type without its dialect prefix (`: <1>`; the format lacks
// `qualified(...)`), which still parses back; either spelling is accepted.
// CHECK-LABEL: func @tma_map_in_global(
func.func @tma_map_in_global(%map: !llvm.ptr<1>, %b: !attngpu.mbarrier,
                             %t: memref<64x64xf16, #gpu.address_space<workgroup>>, %i: i32) {
  // CHECK: attngpu.tma.load %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} to %{{.*}} : {{(!llvm\.ptr)?}}<1>, memref<64x64xf16, #gpu.address_space<workgroup>>{{$}}
  attngpu.tma.load %map[%i, %i], %b to %t : !llvm.ptr<1>, memref<64x64xf16, #gpu.address_space<workgroup>>
  return
}

// A vector reduction into a global memref of any layout.
// CHECK-LABEL: func @red_add(
func.func @red_add(%acc: memref<?x8x?x64xf32, strided<[?, ?, ?, ?], offset: ?>>,
                   %v: vector<2xf32>, %w: vector<4xf32>, %i: index) {
  // CHECK: attngpu.red_add %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : vector<2xf32>, memref<?x8x?x64xf32, strided<[?, ?, ?, ?], offset: ?>>
  attngpu.red_add %v, %acc[%i, %i, %i, %i] : vector<2xf32>, memref<?x8x?x64xf32, strided<[?, ?, ?, ?], offset: ?>>
  // CHECK: attngpu.red_add %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : vector<4xf32>
  attngpu.red_add %w, %acc[%i, %i, %i, %i] : vector<4xf32>, memref<?x8x?x64xf32, strided<[?, ?, ?, ?], offset: ?>>
  return
}

// A bulk reduction of a shared f32 span into a global memref.
// CHECK-LABEL: func @bulk_reduce_add(
func.func @bulk_reduce_add(%acc: memref<?x8x?x64xf32, strided<[?, ?, ?, ?], offset: ?>>,
                           %staged: memref<4096xf32, #gpu.address_space<workgroup>>,
                           %i: index, %bytes: i32) {
  // CHECK: attngpu.bulk_reduce_add %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} : memref<4096xf32, #gpu.address_space<workgroup>>, memref<?x8x?x64xf32, strided<[?, ?, ?, ?], offset: ?>>
  attngpu.bulk_reduce_add %staged, %acc[%i, %i, %i, %i], %bytes : memref<4096xf32, #gpu.address_space<workgroup>>, memref<?x8x?x64xf32, strided<[?, ?, ?, ?], offset: ?>>
  return
}

// Named barriers: a warpgroup waits for its turn and passes the next one on.
// CHECK-LABEL: func @named_barriers(
// CHECK-SAME: %[[ID:[a-zA-Z0-9_]+]]: i32
func.func @named_barriers(%id: i32) {
  // CHECK-NEXT: attngpu.named_barrier.sync %[[ID]], 256{{$}}
  // CHECK-NEXT: attngpu.named_barrier.arrive %[[ID]], 256{{$}}
  attngpu.named_barrier.sync %id, 256
  attngpu.named_barrier.arrive %id, 256
  return
}

// The tensor map of a kernel input: one 64-column panel of 128 rows per
// box, 128-byte swizzle; an f32 map of rank 1 without swizzle.
// CHECK-LABEL: func @tensor_maps(
// CHECK-SAME: %[[K:[a-zA-Z0-9_]+]]: memref<?x16x?x128xbf16>, %[[S:[a-zA-Z0-9_]+]]: memref<?xf32>
func.func @tensor_maps(%k: memref<?x16x?x128xbf16>, %s: memref<?xf32>) -> (!llvm.ptr, i1, !llvm.ptr, i1) {
  // CHECK-NEXT: %[[KMAP:.*]], %[[KOK:.*]] = attngpu.tensor_map %[[K]] {box = array<i64: 64, 128, 1, 1>, swizzle_bytes = 128 : i64} : memref<?x16x?x128xbf16>
  // CHECK-NEXT: %[[SMAP:.*]], %[[SOK:.*]] = attngpu.tensor_map %[[S]] {box = array<i64: 256>, swizzle_bytes = 0 : i64} : memref<?xf32>
  // CHECK-NEXT: return %[[KMAP]], %[[KOK]], %[[SMAP]], %[[SOK]]
  %kmap, %kok = attngpu.tensor_map %k {box = array<i64: 64, 128, 1, 1>, swizzle_bytes = 128 : i64} : memref<?x16x?x128xbf16>
  %smap, %sok = attngpu.tensor_map %s {box = array<i64: 256>, swizzle_bytes = 0 : i64} : memref<?xf32>
  return %kmap, %kok, %smap, %sok : !llvm.ptr, i1, !llvm.ptr, i1
}
