// RUN: attn-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(gpu.module(attngpu-lower-shared-tiles,cse))' | FileCheck %s

// A tile without a swizzle is a view of its bytes: a dense one is the view
// itself, a padded one (rows of 136 elements holding 128) a view of the
// padded rows cut to the tile by a subview. Its accesses are unchanged.

// CHECK-LABEL: gpu.func @plain(
// CHECK-SAME:    %[[I:[a-z0-9]+]]: index, %[[J:[a-z0-9]+]]: index, %[[OUT:[a-z0-9]+]]: memref<4xf32>, %[[FRAGS:[a-z0-9]+]]: memref<4xvector<4x2xbf16>>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C2048:.*]] = arith.constant 2048 : index
// CHECK-DAG:     %[[C20480:.*]] = arith.constant 20480 : index
// CHECK:         %[[SMEM:.*]] = gpu.dynamic_shared_memory
// CHECK:         %[[ROWS:.*]] = memref.view %[[SMEM]][%[[C2048]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x136xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[PADDED:.*]] = memref.subview %[[ROWS]][0, 0] [64, 128] [1, 1] : memref<64x136xbf16, #gpu.address_space<workgroup>> to memref<64x128xbf16, strided<[136, 1]>, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[F:.*]] = nvgpu.ldmatrix %[[PADDED]][%[[I]], %[[J]]] {numTiles = 4 : i32, transpose = false}
// CHECK-NEXT:    memref.store %[[F]], %[[FRAGS]][%[[C0]]]
// CHECK-NEXT:    %[[DENSE:.*]] = memref.view %[[SMEM]][%[[C20480]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16x32xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[V:.*]] = memref.load %[[DENSE]][%[[I]], %[[J]]] : memref<16x32xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    memref.store %[[V]], %[[OUT]][%[[C0]]]
// CHECK-NOT:     attngpu.shared_tile
gpu.module @kernels {
  gpu.func @plain(%i: index, %j: index, %out: memref<4xf32>, %frags: memref<4xvector<4x2xbf16>>) kernel {
    %c0 = arith.constant 0 : index
    %c2048 = arith.constant 2048 : index
    %c20480 = arith.constant 20480 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %t = attngpu.shared_tile %smem[%c2048] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x128xbf16, strided<[136, 1]>, #gpu.address_space<workgroup>>
    %f = nvgpu.ldmatrix %t[%i, %j] {numTiles = 4 : i32, transpose = false} : memref<64x128xbf16, strided<[136, 1]>, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
    memref.store %f, %frags[%c0] : memref<4xvector<4x2xbf16>>
    %d = attngpu.shared_tile %smem[%c20480] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16x32xf32, #gpu.address_space<workgroup>>
    %v = memref.load %d[%i, %j] : memref<16x32xf32, #gpu.address_space<workgroup>>
    memref.store %v, %out[%c0] : memref<4xf32>
    gpu.return
  }
}

// -----

// A 128-byte swizzled tile of 64 x 128 is two panels of 64 x 64: a view of
// 128 x 64. Loads, stores and cp.async destinations address logical
// (row, col) at (col / 64 * 64 + row, ((col % 64) / 8 xor row % 8) * 8 +
// col % 8); wgmma descriptors and TMA loads read the tile's address, so
// they take the view as it is.

// CHECK-LABEL: gpu.func @swizzled(
// CHECK-SAME:    %[[SRC:[a-z0-9]+]]: memref<?xbf16>, %[[MAP:[a-z0-9]+]]: !llvm.ptr, %[[I:[a-z0-9]+]]: index, %[[J:[a-z0-9]+]]: index, %[[DESCS:[a-z0-9]+]]: memref<1xi64>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1024:.*]] = arith.constant 1024 : index
// CHECK:         %[[SMEM:.*]] = gpu.dynamic_shared_memory
// CHECK:         %[[VIEW:.*]] = memref.view %[[SMEM]][%[[C1024]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x64xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[C64:.*]] = arith.constant 64 : index
// CHECK-NEXT:    %[[PANEL:.*]] = arith.divui %[[J]], %[[C64]] : index
// CHECK-NEXT:    %[[IN_PANEL:.*]] = arith.remui %[[J]], %[[C64]] : index
// CHECK-NEXT:    %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[CHUNK:.*]] = arith.divui %[[IN_PANEL]], %[[C8]] : index
// CHECK-NEXT:    %[[ROW8:.*]] = arith.remui %[[I]], %[[C8]] : index
// CHECK-NEXT:    %[[SWIZZLED:.*]] = arith.xori %[[CHUNK]], %[[ROW8]] : index
// CHECK-NEXT:    %[[IN_CHUNK:.*]] = arith.remui %[[IN_PANEL]], %[[C8]] : index
// CHECK-NEXT:    %[[CHUNK_COL:.*]] = arith.muli %[[SWIZZLED]], %[[C8]] : index
// CHECK-NEXT:    %[[COL:.*]] = arith.addi %[[CHUNK_COL]], %[[IN_CHUNK]] : index
// CHECK-NEXT:    %[[PANEL_ROW:.*]] = arith.muli %[[PANEL]], %[[C64]] : index
// CHECK-NEXT:    %[[ROW:.*]] = arith.addi %[[PANEL_ROW]], %[[I]] : index
// CHECK-NEXT:    %[[V:.*]] = memref.load %[[VIEW]][%[[ROW]], %[[COL]]] : memref<128x64xbf16, #gpu.address_space<workgroup>>
// CHECK:         arith.remui %[[J]], %[[C8]] : index
// CHECK:         %[[SROW:.*]] = arith.addi %{{.*}}, %[[J]] : index
// CHECK-NEXT:    memref.store %[[V]], %[[VIEW]][%[[SROW]], %{{.*}}] : memref<128x64xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    nvgpu.device_async_copy %[[SRC]][%[[C0]]], %[[VIEW]][%[[ROW]], %[[COL]]], 8 : memref<?xbf16> to memref<128x64xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[D:.*]] = attngpu.wgmma.descriptor %[[VIEW]][%[[C0]]] {leading_bytes = 16 : i64, stride_bytes = 1024 : i64, swizzle_bytes = 128 : i64} : memref<128x64xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    memref.store %[[D]], %[[DESCS]][%[[C0]]]
// CHECK:         attngpu.tma.load %[[MAP]][%{{.*}}, %{{.*}}], %{{.*}} to %[[VIEW]] : !llvm.ptr, memref<128x64xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    attngpu.tma.store %[[VIEW]] to %[[MAP]][%{{.*}}, %{{.*}}] : memref<128x64xbf16, #gpu.address_space<workgroup>>, !llvm.ptr
// CHECK-NOT:     attngpu.shared_tile
gpu.module @kernels {
  gpu.func @swizzled(%src: memref<?xbf16>, %map: !llvm.ptr, %i: index, %j: index, %descs: memref<1xi64>) kernel {
    %c0 = arith.constant 0 : index
    %c1024 = arith.constant 1024 : index
    %c0_i32 = arith.constant 0 : i32
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %t = attngpu.shared_tile %smem[%c1024] {swizzle_bytes = 128} : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x128xbf16, #gpu.address_space<workgroup>>
    %v = memref.load %t[%i, %j] : memref<64x128xbf16, #gpu.address_space<workgroup>>
    memref.store %v, %t[%j, %i] : memref<64x128xbf16, #gpu.address_space<workgroup>>
    %tok = nvgpu.device_async_copy %src[%c0], %t[%i, %j], 8 : memref<?xbf16> to memref<64x128xbf16, #gpu.address_space<workgroup>>
    %d = attngpu.wgmma.descriptor %t[%c0] {leading_bytes = 16, stride_bytes = 1024, swizzle_bytes = 128} : memref<64x128xbf16, #gpu.address_space<workgroup>>
    memref.store %d, %descs[%c0] : memref<1xi64>
    %bar = attngpu.mbarrier %smem[%c0] : memref<?xi8, #gpu.address_space<workgroup>>
    attngpu.tma.load %map[%c0_i32, %c0_i32], %bar to %t : !llvm.ptr, memref<64x128xbf16, #gpu.address_space<workgroup>>
    attngpu.tma.store %t to %map[%c0_i32, %c0_i32] : memref<64x128xbf16, #gpu.address_space<workgroup>>, !llvm.ptr
    gpu.return
  }
}

// -----

// Other uses cannot address a swizzled tile: a subview would see the
// physical layout as the logical one.
gpu.module @kernels {
  gpu.func @subview() kernel {
    %c0 = arith.constant 0 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %t = attngpu.shared_tile %smem[%c0] {swizzle_bytes = 128} : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xbf16, #gpu.address_space<workgroup>>
    // expected-error @below {{cannot address a 128-byte swizzled shared tile through memref.subview}}
    %s = memref.subview %t[0, 0] [8, 8] [1, 1] : memref<64x64xbf16, #gpu.address_space<workgroup>> to memref<8x8xbf16, strided<[64, 1]>, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Nor a cp.async that copies out of it (only destinations are rewritten).
gpu.module @kernels {
  gpu.func @copy_source(%dst: memref<64x64xbf16, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %t = attngpu.shared_tile %smem[%c0] {swizzle_bytes = 128} : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xbf16, #gpu.address_space<workgroup>>
    // expected-error @below {{cannot address a 128-byte swizzled shared tile through nvgpu.device_async_copy}}
    %tok = nvgpu.device_async_copy %t[%c0, %c0], %dst[%c0, %c0], 8 : memref<64x64xbf16, #gpu.address_space<workgroup>> to memref<64x64xbf16, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// ldmatrix reads one 16-byte row chunk per lane: its (row, col) is
// swizzled like a load's.
// CHECK-LABEL: gpu.func @ldmatrix(
// CHECK-SAME:    %[[I:[a-z0-9]+]]: index, %[[J:[a-z0-9]+]]: index
// CHECK:         %[[VIEW:.*]] = memref.view %{{.*}}[%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xbf16, #gpu.address_space<workgroup>>
// CHECK:         arith.xori
// CHECK:         %[[COL:.*]] = arith.addi
// CHECK:         %[[ROW:.*]] = arith.addi %{{.*}}, %[[I]] : index
// CHECK-NEXT:    nvgpu.ldmatrix %[[VIEW]][%[[ROW]], %[[COL]]] {numTiles = 4 : i32, transpose = false}
gpu.module @kernels {
  gpu.func @ldmatrix(%i: index, %j: index, %frags: memref<4xvector<4x2xbf16>>) kernel {
    %c0 = arith.constant 0 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %t = attngpu.shared_tile %smem[%c0] {swizzle_bytes = 128} : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xbf16, #gpu.address_space<workgroup>>
    %f = nvgpu.ldmatrix %t[%i, %j] {numTiles = 4 : i32, transpose = false} : memref<64x64xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
    memref.store %f, %frags[%c0] : memref<4xvector<4x2xbf16>>
    gpu.return
  }
}

// -----

// A tile typed with its (unpadded) strides keeps that type: the view of its
// rows is cut to it.
// CHECK-LABEL: gpu.func @strided_type(
// CHECK:         %[[VIEW:.*]] = memref.view %{{.*}}[%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16x32xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[TILE:.*]] = memref.subview %[[VIEW]][0, 0] [16, 32] [1, 1] : memref<16x32xf32, #gpu.address_space<workgroup>> to memref<16x32xf32, strided<[32, 1]>, #gpu.address_space<workgroup>>
// CHECK-NEXT:    call @use(%[[TILE]])
gpu.module @kernels {
  func.func private @use(memref<16x32xf32, strided<[32, 1]>, #gpu.address_space<workgroup>>)
  gpu.func @strided_type() kernel {
    %c0 = arith.constant 0 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %t = attngpu.shared_tile %smem[%c0] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16x32xf32, strided<[32, 1]>, #gpu.address_space<workgroup>>
    func.call @use(%t) : (memref<16x32xf32, strided<[32, 1]>, #gpu.address_space<workgroup>>) -> ()
    gpu.return
  }
}

// -----

// A descriptor's swizzle must be its tile's: a 128-byte swizzled descriptor
// of an unswizzled tile would read it wrongly.
gpu.module @kernels {
  gpu.func @descriptor_swizzle_mismatch(%descs: memref<1xi64>) kernel {
    %c0 = arith.constant 0 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %t = attngpu.shared_tile %smem[%c0] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xbf16, #gpu.address_space<workgroup>>
    // expected-error @below {{describes a tile with swizzle_bytes = 128, but the tile has 0}}
    %d = attngpu.wgmma.descriptor %t[%c0] {leading_bytes = 16, stride_bytes = 1024, swizzle_bytes = 128} : memref<64x64xbf16, #gpu.address_space<workgroup>>
    memref.store %d, %descs[%c0] : memref<1xi64>
    gpu.return
  }
}

// -----

// ... and the other way round.
gpu.module @kernels {
  gpu.func @descriptor_unswizzled_of_swizzled(%descs: memref<1xi64>) kernel {
    %c0 = arith.constant 0 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %t = attngpu.shared_tile %smem[%c0] {swizzle_bytes = 128} : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xbf16, #gpu.address_space<workgroup>>
    // expected-error @below {{describes a tile with swizzle_bytes = 0, but the tile has 128}}
    %d = attngpu.wgmma.descriptor %t[%c0] {leading_bytes = 16, stride_bytes = 1024, swizzle_bytes = 0} : memref<64x64xbf16, #gpu.address_space<workgroup>>
    memref.store %d, %descs[%c0] : memref<1xi64>
    gpu.return
  }
}

// -----

// A vector store of a pair (or up to 8 elements) stays within one 16-byte
// chunk: its (row, col) is swizzled like a store's.
// CHECK-LABEL: gpu.func @vector_store(
// CHECK-SAME:    %[[I:[a-z0-9]+]]: index, %[[J:[a-z0-9]+]]: index, %[[PAIR:[a-z0-9]+]]: vector<2xbf16>
// CHECK:         %[[VIEW:.*]] = memref.view %{{.*}}[%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xbf16, #gpu.address_space<workgroup>>
// CHECK:         arith.xori
// CHECK:         %[[COL:.*]] = arith.addi
// CHECK:         %[[ROW:.*]] = arith.addi %{{.*}}, %[[I]] : index
// CHECK-NEXT:    vector.store %[[PAIR]], %[[VIEW]][%[[ROW]], %[[COL]]] : memref<64x64xbf16, #gpu.address_space<workgroup>>, vector<2xbf16>
gpu.module @kernels {
  gpu.func @vector_store(%i: index, %j: index, %pair: vector<2xbf16>) kernel {
    %c0 = arith.constant 0 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %t = attngpu.shared_tile %smem[%c0] {swizzle_bytes = 128} : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xbf16, #gpu.address_space<workgroup>>
    vector.store %pair, %t[%i, %j] : memref<64x64xbf16, #gpu.address_space<workgroup>>, vector<2xbf16>
    gpu.return
  }
}

// -----

// A vector that may cross a chunk cannot be swizzled as one.
gpu.module @kernels {
  gpu.func @vector_store_wide(%i: index, %j: index, %v: vector<16xbf16>) kernel {
    %c0 = arith.constant 0 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %t = attngpu.shared_tile %smem[%c0] {swizzle_bytes = 128} : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xbf16, #gpu.address_space<workgroup>>
    // expected-error @below {{cannot address a 128-byte swizzled shared tile through vector.store}}
    vector.store %v, %t[%i, %j] : memref<64x64xbf16, #gpu.address_space<workgroup>>, vector<16xbf16>
    gpu.return
  }
}
