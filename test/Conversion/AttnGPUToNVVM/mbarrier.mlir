// RUN: attn-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(convert-attngpu-to-nvvm))' | FileCheck %s

// convert-attngpu-to-nvvm on the mbarrier ops: !attngpu.mbarrier becomes a
// shared-memory pointer (!llvm.ptr<3>) and every op the NVVM op of the same
// primitive.

// attngpu.mbarrier is the shared base address plus the byte offset, as a
// pointer in address space 3; then init (count), fence_init, arrive,
// arrive_cp_async (cp.async.mbarrier.arrive.noinc), arrive_expect_tx
// (bytes) and wait (try_wait.parity, which NVVM loops on, with a suspend
// hint of 1000000 ns), all on that pointer, in order.
gpu.module @mbarrier_ops {
  // CHECK-LABEL: func.func @mbarrier_ops(
  // CHECK-SAME: %[[SMEM:[a-zA-Z0-9_]+]]: memref<?xi8, #gpu.address_space<workgroup>>, %[[OFF:[a-zA-Z0-9_]+]]: index, %[[N:[a-zA-Z0-9_]+]]: i32, %[[PHASE:[a-zA-Z0-9_]+]]: i32)
  func.func @mbarrier_ops(%smem: memref<?xi8, #gpu.address_space<workgroup>>, %off: index,
                          %n: i32, %phase: i32) {
    // CHECK-NEXT: %[[OFF64:.*]] = arith.index_castui %[[OFF]] : index to i64
    // CHECK-NEXT: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[SMEM]] : memref<?xi8, #gpu.address_space<workgroup>> -> index
    // CHECK-NEXT: %[[BASE64:.*]] = arith.index_castui %[[BASE]] : index to i64
    // CHECK-NEXT: %[[ADDR:.*]] = arith.addi %[[BASE64]], %[[OFF64]] : i64
    // CHECK-NEXT: %[[B:.*]] = llvm.inttoptr %[[ADDR]] : i64 to !llvm.ptr<3>
    // CHECK-NEXT: nvvm.mbarrier.init %[[B]], %[[N]] : !llvm.ptr<3>, i32
    // CHECK-NEXT: nvvm.fence.mbarrier.init{{$}}
    // CHECK-NEXT: nvvm.mbarrier.arrive %[[B]] : !llvm.ptr<3>
    // CHECK-NEXT: nvvm.cp.async.mbarrier.arrive %[[B]] {noinc = true} : !llvm.ptr<3>
    // CHECK-NEXT: nvvm.mbarrier.arrive.expect_tx %[[B]], %[[N]] : !llvm.ptr<3>, i32
    // CHECK-NEXT: %[[TICKS:.*]] = arith.constant 1000000 : i32
    // CHECK-NEXT: nvvm.mbarrier.try_wait.parity %[[B]], %[[PHASE]], %[[TICKS]] : !llvm.ptr<3>, i32, i32
    // CHECK-NEXT: return
    %b = attngpu.mbarrier %smem[%off] : memref<?xi8, #gpu.address_space<workgroup>>
    attngpu.mbarrier.init %b, %n
    attngpu.mbarrier.fence_init
    attngpu.mbarrier.arrive %b
    attngpu.mbarrier.arrive_cp_async %b
    attngpu.mbarrier.arrive_expect_tx %b, %n
    attngpu.mbarrier.wait %b, %phase
    return
  }
}

// -----

// Two mbarriers at different offsets of one buffer: each is its own
// pointer, and each op uses its own barrier.
gpu.module @two_mbarriers {
  // CHECK-LABEL: func.func @two_mbarriers(
  // CHECK-SAME: %[[SMEM:[a-zA-Z0-9_]+]]: memref<?xi8, #gpu.address_space<workgroup>>)
  func.func @two_mbarriers(%smem: memref<?xi8, #gpu.address_space<workgroup>>) {
    // CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
    // CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
    // CHECK: %[[OFF8:.*]] = arith.index_castui %[[C8]] : index to i64
    // CHECK: %[[ADDR8:.*]] = arith.addi %{{.*}}, %[[OFF8]] : i64
    // CHECK-NEXT: %[[FULL:.*]] = llvm.inttoptr %[[ADDR8]] : i64 to !llvm.ptr<3>
    // CHECK-NEXT: %[[OFF16:.*]] = arith.index_castui %[[C16]] : index to i64
    // CHECK: %[[ADDR16:.*]] = arith.addi %{{.*}}, %[[OFF16]] : i64
    // CHECK-NEXT: %[[FREE:.*]] = llvm.inttoptr %[[ADDR16]] : i64 to !llvm.ptr<3>
    // CHECK: nvvm.mbarrier.arrive %[[FREE]] : !llvm.ptr<3>
    // CHECK: nvvm.mbarrier.try_wait.parity %[[FULL]],
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c0_i32 = arith.constant 0 : i32
    %full = attngpu.mbarrier %smem[%c8] : memref<?xi8, #gpu.address_space<workgroup>>
    %free = attngpu.mbarrier %smem[%c16] : memref<?xi8, #gpu.address_space<workgroup>>
    attngpu.mbarrier.arrive %free
    attngpu.mbarrier.wait %full, %c0_i32
    return
  }
}

// -----

// The pass does not rewrite signatures: an mbarrier that comes in as a
// block argument reaches the NVVM op through a conversion cast to the
// pointer type.
gpu.module @mbarrier_argument {
  // CHECK-LABEL: func.func @mbarrier_argument(
  // CHECK-SAME: %[[ARG:[a-zA-Z0-9_]+]]: !attngpu.mbarrier, %[[BYTES:[a-zA-Z0-9_]+]]: i32)
  func.func @mbarrier_argument(%b: !attngpu.mbarrier, %bytes: i32) {
    // CHECK-NEXT: %[[B:.*]] = builtin.unrealized_conversion_cast %[[ARG]] : !attngpu.mbarrier to !llvm.ptr<3>
    // CHECK-NEXT: nvvm.mbarrier.arrive.expect_tx %[[B]], %[[BYTES]] : !llvm.ptr<3>, i32
    // CHECK-NEXT: return
    attngpu.mbarrier.arrive_expect_tx %b, %bytes
    return
  }
}
