// RUN: attn-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(convert-attngpu-to-nvvm))' | FileCheck %s

// convert-attngpu-to-nvvm on the wgmma descriptor, the async-proxy fence,
// TMA loads and ex2.

// A descriptor: the tile's shared address plus the byte offset, masked to
// 18 bits and shifted right by 4 (bits 0-13), or'ed with one constant that
// holds leading_bytes / 16 << 16, stride_bytes / 16 << 32 and the swizzle
// mode << 62 (1 for 128 bytes):
//   16 / 1024 / 128        -> 1 << 16 | 64 << 32 | 1 << 62 = 4611686293305360384
//   128 / 256 / 0          -> 8 << 16 | 16 << 32           = 68720001024
//   262128 / 262128 / 128  -> 16383 << 16 | 16383 << 32 | 1 << 62
//                                                          = 4611756383950274560
gpu.module @descriptor {
  // CHECK-LABEL: func.func @descriptor(
  // CHECK-SAME: %[[T:[a-zA-Z0-9_]+]]: memref<128x64xbf16, #gpu.address_space<workgroup>>, %[[OFF:[a-zA-Z0-9_]+]]: index)
  func.func @descriptor(%t: memref<128x64xbf16, #gpu.address_space<workgroup>>, %off: index) -> (i64, i64, i64) {
    // CHECK-NEXT: %[[OFF64:.*]] = arith.index_castui %[[OFF]] : index to i64
    // CHECK-NEXT: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[T]] : memref<128x64xbf16, #gpu.address_space<workgroup>> -> index
    // CHECK-NEXT: %[[BASE64:.*]] = arith.index_castui %[[BASE]] : index to i64
    // CHECK-NEXT: %[[ADDR:.*]] = arith.addi %[[BASE64]], %[[OFF64]] : i64
    // CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : i64
    // CHECK-NEXT: %[[MASK:.*]] = arith.constant 262143 : i64
    // CHECK-NEXT: %[[LOW:.*]] = arith.andi %[[ADDR]], %[[MASK]] : i64
    // CHECK-NEXT: %[[START:.*]] = arith.shrui %[[LOW]], %[[C4]] : i64
    // CHECK-NEXT: %[[FIXED:.*]] = arith.constant 4611686293305360384 : i64
    // CHECK-NEXT: %[[D0:.*]] = arith.ori %[[START]], %[[FIXED]] : i64
    // CHECK: %[[FIXED1:.*]] = arith.constant 68720001024 : i64
    // CHECK-NEXT: %[[D1:.*]] = arith.ori %{{.*}}, %[[FIXED1]] : i64
    // CHECK: %[[FIXED2:.*]] = arith.constant 4611756383950274560 : i64
    // CHECK-NEXT: %[[D2:.*]] = arith.ori %{{.*}}, %[[FIXED2]] : i64
    // CHECK-NEXT: return %[[D0]], %[[D1]], %[[D2]]
    %d0 = attngpu.wgmma.descriptor %t[%off] {leading_bytes = 16, stride_bytes = 1024, swizzle_bytes = 128}
        : memref<128x64xbf16, #gpu.address_space<workgroup>>
    %d1 = attngpu.wgmma.descriptor %t[%off] {leading_bytes = 128, stride_bytes = 256, swizzle_bytes = 0}
        : memref<128x64xbf16, #gpu.address_space<workgroup>>
    %d2 = attngpu.wgmma.descriptor %t[%off] {leading_bytes = 262128, stride_bytes = 262128, swizzle_bytes = 128}
        : memref<128x64xbf16, #gpu.address_space<workgroup>>
    return %d0, %d1, %d2 : i64, i64, i64
  }
}

// -----

// fence_proxy_async is fence.proxy.async.shared::cta.
gpu.module @fence_proxy_async {
  // CHECK-LABEL: func.func @fence_proxy_async(
  func.func @fence_proxy_async() {
    // CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    // CHECK-NEXT: return
    attngpu.fence_proxy_async
    return
  }
}

// -----

// A TMA load: the tile's shared address as a pointer in address space 3,
// cast to the cluster-shared space (7) that the PTX 8.0 form
// cp.async.bulk.tensor...shared::cluster takes, from the tensor map at the
// coordinates, completing on the mbarrier's pointer.
gpu.module @tma_load {
  // CHECK-LABEL: func.func @tma_load(
  // CHECK-SAME: %[[MAP:[a-zA-Z0-9_]+]]: !llvm.ptr, %[[SMEM:[a-zA-Z0-9_]+]]: memref<?xi8, #gpu.address_space<workgroup>>, %[[T:[a-zA-Z0-9_]+]]: memref<128x64xbf16, #gpu.address_space<workgroup>>, %[[I:[a-zA-Z0-9_]+]]: i32, %[[J:[a-zA-Z0-9_]+]]: i32)
  func.func @tma_load(%map: !llvm.ptr, %smem: memref<?xi8, #gpu.address_space<workgroup>>,
                      %t: memref<128x64xbf16, #gpu.address_space<workgroup>>, %i: i32, %j: i32) {
    // CHECK: %[[B:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
    // CHECK-NEXT: %[[TILE:.*]] = memref.extract_aligned_pointer_as_index %[[T]] : memref<128x64xbf16, #gpu.address_space<workgroup>> -> index
    // CHECK-NEXT: %[[TILE64:.*]] = arith.index_castui %[[TILE]] : index to i64
    // CHECK-NEXT: %[[CTA:.*]] = llvm.inttoptr %[[TILE64]] : i64 to !llvm.ptr<3>
    // CHECK-NEXT: %[[DST:.*]] = llvm.addrspacecast %[[CTA]] : !llvm.ptr<3> to !llvm.ptr<7>
    // CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[DST]], %[[MAP]], %[[B]], box[%[[I]], %[[J]]] : !llvm.ptr<7>, !llvm.ptr
    // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAP]], %[[B]], box[%[[J]]] : !llvm.ptr<7>, !llvm.ptr
    // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAP]], %[[B]], box[%[[I]], %[[J]], %[[I]], %[[J]], %[[I]]] : !llvm.ptr<7>, !llvm.ptr
    // CHECK-NOT: attngpu.
    %c0 = arith.constant 0 : index
    %b = attngpu.mbarrier %smem[%c0] : memref<?xi8, #gpu.address_space<workgroup>>
    attngpu.tma.load %map[%i, %j], %b to %t : !llvm.ptr, memref<128x64xbf16, #gpu.address_space<workgroup>>
    attngpu.tma.load %map[%j], %b to %t : !llvm.ptr, memref<128x64xbf16, #gpu.address_space<workgroup>>
    attngpu.tma.load %map[%i, %j, %i, %j, %i], %b to %t : !llvm.ptr, memref<128x64xbf16, #gpu.address_space<workgroup>>
    return
  }
}

// -----

// A TMA store: the tile's shared address as a pointer in address space 3
// (the .shared::cta form of PTX 8.0), to the tensor map's box at the
// coordinates; a map in global memory is cast to a generic pointer.
gpu.module @tma_store {
  // CHECK-LABEL: func.func @tma_store(
  // CHECK-SAME: %[[MAP:[a-zA-Z0-9_]+]]: !llvm.ptr, %[[GMAP:[a-zA-Z0-9_]+]]: !llvm.ptr<1>, %[[T:[a-zA-Z0-9_]+]]: memref<64x64xbf16, #gpu.address_space<workgroup>>, %[[I:[a-zA-Z0-9_]+]]: i32, %[[J:[a-zA-Z0-9_]+]]: i32)
  func.func @tma_store(%map: !llvm.ptr, %gmap: !llvm.ptr<1>,
                       %t: memref<64x64xbf16, #gpu.address_space<workgroup>>, %i: i32, %j: i32) {
    // CHECK: %[[TILE:.*]] = memref.extract_aligned_pointer_as_index %[[T]] : memref<64x64xbf16, #gpu.address_space<workgroup>> -> index
    // CHECK-NEXT: %[[TILE64:.*]] = arith.index_castui %[[TILE]] : index to i64
    // CHECK-NEXT: %[[SRC:.*]] = llvm.inttoptr %[[TILE64]] : i64 to !llvm.ptr<3>
    // CHECK-NEXT: nvvm.cp.async.bulk.tensor.global.shared.cta %[[MAP]], %[[SRC]], box[%[[I]], %[[J]], %[[I]], %[[J]]] : !llvm.ptr,
    // CHECK: %[[GENERIC:.*]] = llvm.addrspacecast %[[GMAP]] : !llvm.ptr<1> to !llvm.ptr
    // CHECK-NEXT: nvvm.cp.async.bulk.tensor.global.shared.cta %[[GENERIC]], %{{.*}}, box[%[[I]]] : !llvm.ptr,
    // CHECK-NOT: attngpu.
    attngpu.tma.store %t to %map[%i, %j, %i, %j] : memref<64x64xbf16, #gpu.address_space<workgroup>>, !llvm.ptr
    attngpu.tma.store %t to %gmap[%i] : memref<64x64xbf16, #gpu.address_space<workgroup>>, !llvm.ptr<1>
    return
  }
}

// -----

// ex2 is one ex2.approx.ftz.f32 in inline PTX, free of side effects (so
// LLVM may move or drop it).
gpu.module @ex2 {
  // CHECK-LABEL: func.func @ex2(
  // CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: f32)
  func.func @ex2(%x: f32) -> f32 {
    // CHECK-NEXT: %[[Y:.*]] = llvm.inline_asm "ex2.approx.ftz.f32 $0, $1;", "=f,f" %[[X]] : (f32) -> f32
    // CHECK-NEXT: return %[[Y]]
    %y = attngpu.ex2 %x
    return %y : f32
  }
}

// -----

// A tensor map in global memory is cast to the generic pointer the NVVM op
// takes.
gpu.module @tma_load_global_map {
  // CHECK-LABEL: func.func @tma_load_global_map(
  // CHECK-SAME: %[[MAP:[a-zA-Z0-9_]+]]: !llvm.ptr<1>
  func.func @tma_load_global_map(%map: !llvm.ptr<1>, %smem: memref<?xi8, #gpu.address_space<workgroup>>,
                                 %t: memref<64x64xbf16, #gpu.address_space<workgroup>>, %i: i32) {
    // CHECK: %[[GENERIC:.*]] = llvm.addrspacecast %[[MAP]] : !llvm.ptr<1> to !llvm.ptr
    // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[GENERIC]], %{{.*}}, box[%{{.*}}, %{{.*}}]
    %c0 = arith.constant 0 : index
    %b = attngpu.mbarrier %smem[%c0] : memref<?xi8, #gpu.address_space<workgroup>>
    attngpu.tma.load %map[%i, %i], %b to %t : !llvm.ptr<1>, memref<64x64xbf16, #gpu.address_space<workgroup>>
    return
  }
}

// -----

// red_add: the element's address from the memref's aligned pointer, offset
// and strides, then one red.global.add.v2.f32 of the two lanes.
gpu.module @red_add {
  // CHECK-LABEL: func.func @red_add(
  func.func @red_add(%acc: memref<?x64xf32, strided<[?, 1], offset: ?>>, %v: vector<2xf32>, %i: index, %j: index) {
    // CHECK: %{{.*}}, %{{.*}}, %{{.*}}:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata
    // CHECK: %[[ROW:.*]] = arith.muli %{{.*}}, %[[STRIDES]]#0 : index
    // CHECK: %[[C4:.*]] = arith.constant 4 : index
    // CHECK: memref.extract_aligned_pointer_as_index
    // CHECK: %[[X:.*]] = vector.extract %{{.*}}[0] : f32 from vector<2xf32>
    // CHECK: %[[Y:.*]] = vector.extract %{{.*}}[1] : f32 from vector<2xf32>
    // CHECK: llvm.inline_asm has_side_effects "red.global.add.v2.f32 [$0], {$1, $2};", "l,f,f" %{{.*}}, %[[X]], %[[Y]] : (i64, f32, f32) -> ()
    // CHECK-NOT: attngpu.red_add
    attngpu.red_add %v, %acc[%i, %j] : vector<2xf32>, memref<?x64xf32, strided<[?, 1], offset: ?>>
    return
  }
}

// -----

// bulk_reduce_add: the global element's address, the shared span's address
// and the byte count in one cp.reduce.async.bulk (its bulk group is closed
// by nvvm.cp.async.bulk.commit.group, which stays as it is).
gpu.module @bulk_reduce_add {
  // CHECK-LABEL: func.func @bulk_reduce_add(
  func.func @bulk_reduce_add(%acc: memref<?x64xf32, strided<[?, 1], offset: ?>>,
                             %staged: memref<4096xf32, #gpu.address_space<workgroup>>,
                             %i: index, %bytes: i32) {
    // CHECK: %[[C4:.*]] = arith.constant 4 : index
    // CHECK: %[[GLOBAL:.*]] = arith.index_castui %{{.*}} : index to i64
    // CHECK: %[[SHARED_INDEX:.*]] = memref.extract_aligned_pointer_as_index %{{.*}} : memref<4096xf32, #gpu.address_space<workgroup>> -> index
    // CHECK: %[[SHARED:.*]] = arith.index_castui %[[SHARED_INDEX]] : index to i64
    // CHECK: llvm.inline_asm has_side_effects "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [$0], [$1], $2;", "l,l,r" %[[GLOBAL]], %[[SHARED]], %{{.*}} : (i64, i64, i32) -> ()
    // CHECK-NEXT: nvvm.cp.async.bulk.commit.group
    // CHECK-NOT: attngpu.bulk_reduce_add
    %c0 = arith.constant 0 : index
    attngpu.bulk_reduce_add %staged, %acc[%i, %c0], %bytes : memref<4096xf32, #gpu.address_space<workgroup>>, memref<?x64xf32, strided<[?, 1], offset: ?>>
    nvvm.cp.async.bulk.commit.group
    return
  }
}

// -----

// Named barriers: bar.sync as nvvm.barrier with an id and a thread count,
// bar.arrive as nvvm.barrier.arrive.
gpu.module @named_barriers {
  // CHECK-LABEL: func.func @named_barriers(
  // CHECK-SAME: %[[ID:[a-zA-Z0-9_]+]]: i32
  func.func @named_barriers(%id: i32) {
    // CHECK-NEXT: %[[N:.*]] = arith.constant 256 : i32
    // CHECK-NEXT: nvvm.barrier id = %[[ID]] number_of_threads = %[[N]]
    // CHECK-NEXT: %[[M:.*]] = arith.constant 384 : i32
    // CHECK-NEXT: nvvm.barrier.arrive id = %[[ID]] number_of_threads = %[[M]]
    // CHECK-NEXT: return
    attngpu.named_barrier.sync %id, 256
    attngpu.named_barrier.arrive %id, 384
    return
  }
}
