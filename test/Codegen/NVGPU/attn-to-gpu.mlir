// RUN: attn-opt %s -split-input-file --convert-attn-to-gpu --canonicalize | FileCheck %s

// The scalar kernel (mma = none): the kernel function keeps its buffers and
// holds a gpu.launch over the grid (query block, head, batch) with one
// thread per query row. Causal kernels take their blocks in groups of 8
// (batch, head) pairs, in each the query blocks last first, the pairs side
// by side (block ids from the linear launch index). The
// f32 tiles are views of dynamic shared memory, the per-row ones (q, s,
// acc) padded by one element; copies are spread over the block's threads
// between barriers, and each thread's row is guarded by thread < rows.

// CHECK-LABEL: func.func @causal_gqa(
// CHECK-SAME:    %[[Q:[a-z0-9]+]]: memref<2x8x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK-SAME:    %[[K:[a-z0-9]+]]: memref<2x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK-SAME:    %{{[a-z0-9]+}}: memref<2x2x?x32xbf16, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<2x8x?x32xbf16, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK-SAME:    %[[LSE:[a-z0-9]+]]: memref<2x8x?xf32, strided<[?, ?, ?], offset: ?>>)
// CHECK-SAME:    attributes {attnrt.kernel} {
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG:     %[[SHARED:.*]] = arith.constant 20800 : i32
// CHECK:         %[[NQ:.*]] = memref.dim %[[Q]], %[[C2]]
// CHECK:         %[[QBLOCKS:.*]] = arith.ceildivui %[[NQ]], %[[C16]] : index
// CHECK:         gpu.launch blocks(%[[BX:[a-z0-9_]+]], %[[BY:[a-z0-9_]+]], %[[BZ:[a-z0-9_]+]]) in (%[[GX:[a-z0-9_]+]] = %[[QBLOCKS]], %[[GY:[a-z0-9_]+]] = %[[C8]], %[[GZ:[a-z0-9_]+]] = %[[C2]])
// CHECK-SAME:      threads(%[[TID:[a-z0-9_]+]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (%{{[a-z0-9_]+}} = %[[C16]], %{{[a-z0-9_]+}} = %[[C1]], %{{[a-z0-9_]+}} = %[[C1]])
// CHECK-SAME:      dynamic_shared_memory_size %[[SHARED]] {
// CHECK:           %[[ZPAIRS:.*]] = arith.muli %[[GY]], %[[BZ]] : index
// CHECK:           %[[PAIR:.*]] = arith.addi %[[BY]], %[[ZPAIRS]] : index
// CHECK:           %[[PAIRROWS:.*]] = arith.muli %[[GX]], %[[PAIR]] : index
// CHECK:           %[[LINEAR:.*]] = arith.addi %[[BX]], %[[PAIRROWS]] : index
// CHECK:           %[[SPAN:.*]] = arith.muli %[[GX]], %[[C8]] : index
// CHECK:           %[[GROUP:.*]] = arith.divui %[[LINEAR]], %[[SPAN]] : index
// CHECK:           %[[FIRST:.*]] = arith.muli %[[GROUP]], %[[C8]] : index
// CHECK:           %[[BEFORE:.*]] = arith.muli %[[FIRST]], %[[GX]] : index
// CHECK:           %[[IN_GROUP:.*]] = arith.subi %[[LINEAR]], %[[BEFORE]] : index
// CHECK:           %[[PAIRS:.*]] = arith.muli %[[GY]], %[[GZ]] : index
// CHECK:           %[[LEFT:.*]] = arith.subi %[[PAIRS]], %[[FIRST]] : index
// CHECK:           %[[GROUP_PAIRS:.*]] = arith.minui %[[LEFT]], %[[C8]] : index
// CHECK:           %[[STEP:.*]] = arith.divui %[[IN_GROUP]], %[[GROUP_PAIRS]] : index
// CHECK:           %[[REST:.*]] = arith.subi %[[GX]], %[[STEP]] : index
// CHECK:           %[[QBLOCK:.*]] = arith.subi %[[REST]], %[[C1]] : index
// CHECK:           %[[STEPS:.*]] = arith.muli %[[STEP]], %[[GROUP_PAIRS]] : index
// CHECK:           %[[WITHIN:.*]] = arith.subi %[[IN_GROUP]], %[[STEPS]] : index
// CHECK:           %[[BLOCK_PAIR:.*]] = arith.addi %[[FIRST]], %[[WITHIN]] : index
// CHECK:           %[[HEAD:.*]] = arith.remui %[[BLOCK_PAIR]], %[[GY]] : index
// CHECK:           %[[BATCH:.*]] = arith.divui %[[BLOCK_PAIR]], %[[GY]] : index
// CHECK:           %[[SMEM:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK:           %[[Q_TILE:.*]] = memref.view %[[SMEM]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16x65xf32, #gpu.address_space<workgroup>>
// CHECK:           memref.view %[[SMEM]][%{{.*}}][] : {{.*}} to memref<32x64xf32, #gpu.address_space<workgroup>>
// CHECK:           memref.view %[[SMEM]][%{{.*}}][] : {{.*}} to memref<32x32xf32, #gpu.address_space<workgroup>>
// CHECK:           memref.view %[[SMEM]][%{{.*}}][] : {{.*}} to memref<16x33xf32, #gpu.address_space<workgroup>>
// CHECK:           memref.view %[[SMEM]][%{{.*}}][] : {{.*}} to memref<16x33xf32, #gpu.address_space<workgroup>>
// CHECK:           memref.view %[[SMEM]][%{{.*}}][] : {{.*}} to memref<16xf32, #gpu.address_space<workgroup>>
// CHECK:           memref.view %[[SMEM]][%{{.*}}][] : {{.*}} to memref<16xf32, #gpu.address_space<workgroup>>
// CHECK:           %[[HEAD_KV:.*]] = arith.divui %[[HEAD]], %[[C4]] : index
// CHECK:           %[[Q0:.*]] = arith.muli %[[QBLOCK]], %[[C16]] : index
// CHECK:           scf.for %{{.*}} = %[[TID]] to %{{.*}} step %[[C16]] {
// CHECK:             memref.load %[[Q]][%[[BATCH]], %[[HEAD]], %{{.*}}, %{{.*}}]
// CHECK:             arith.extf %{{.*}} : bf16 to f32
// CHECK:           gpu.barrier
// CHECK:           %[[OWNS_ROW:.*]] = arith.cmpi ult, %[[TID]], %{{.*}} : index
// CHECK:           scf.if %[[OWNS_ROW]] {
// CHECK:           scf.for
// CHECK:             %[[MAY_ALLOW:.*]] = arith.cmpi sle
// CHECK:             scf.if %[[MAY_ALLOW]] {
// CHECK-NEXT:          gpu.barrier
// CHECK:               memref.load %[[K]][%[[BATCH]], %[[HEAD_KV]], %{{.*}}, %{{.*}}]
// CHECK:               gpu.barrier
// CHECK:               arith.cmpi ult, %[[TID]], %{{.*}} : index
// CHECK-NEXT:          scf.if
// CHECK:                 memref.load %[[Q_TILE]][%[[TID]], %{{.*}}]
// CHECK:                 math.exp2
// CHECK:           arith.cmpi ult, %[[TID]], %{{.*}} : index
// CHECK-NEXT:      scf.if
// CHECK:             memref.store %{{.*}}, %[[OUT]][%[[BATCH]], %[[HEAD]], %{{.*}}, %{{.*}}]
// CHECK:             memref.store %{{.*}}, %[[LSE]][%[[BATCH]], %[[HEAD]], %{{.*}}]
// CHECK:           gpu.terminator
// CHECK:         return
// CHECK-NOT:     attn.
module @attnc_kernels {
  func.func @causal_gqa(%q: memref<2x8x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                        %k: memref<2x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                        %v: memref<2x2x?x32xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                        %out: memref<2x8x?x32xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                        %lse: memref<2x8x?xf32, strided<[?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %q : memref<2x8x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<2x8x?x64xbf16>
    %1 = bufferization.to_tensor %k : memref<2x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<2x2x?x64xbf16>
    %2 = bufferization.to_tensor %v : memref<2x2x?x32xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<2x2x?x32xbf16>
    %o, %l = attn.attention %0, %1, %2 {causal, tiles = #attn.tiles<block_m = 16, block_n = 32, mma = none>}
        : tensor<2x8x?x64xbf16>, tensor<2x2x?x64xbf16>, tensor<2x2x?x32xbf16> -> tensor<2x8x?x32xbf16>, tensor<2x8x?xf32>
    bufferization.materialize_in_destination %o in writable %out : (tensor<2x8x?x32xbf16>, memref<2x8x?x32xbf16, strided<[?, ?, ?, ?], offset: ?>>) -> ()
    bufferization.materialize_in_destination %l in writable %lse : (tensor<2x8x?xf32>, memref<2x8x?xf32, strided<[?, ?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// Without a causal mask the query blocks run in order; every kernel of the
// kernel module is lowered in place.

// CHECK-LABEL: func.func @first(
// CHECK:         gpu.launch blocks(%[[BX:[a-z0-9_]+]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in
// CHECK-NOT:       arith.subi %{{.*}}, %[[BX]]
// CHECK:           %[[Q0:.*]] = arith.muli %[[BX]], %{{.*}} : index
// CHECK-LABEL: func.func @second(
// CHECK:         gpu.launch
module @attnc_kernels {
  func.func @first(%q: memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>,
                   %out: memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %q : memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x1x?x16xf32>
    %o, %l = attn.attention %0, %0, %0 {tiles = #attn.tiles<block_m = 8, block_n = 8, mma = none>}
        : tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32> -> tensor<1x1x?x16xf32>, tensor<1x1x?xf32>
    bufferization.materialize_in_destination %o in writable %out : (tensor<1x1x?x16xf32>, memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>) -> ()
    return
  }
  func.func @second(%q: memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>,
                    %lse: memref<1x1x?xf32, strided<[?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %q : memref<1x1x?x16xf32, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x1x?x16xf32>
    %o, %l = attn.attention %0, %0, %0 {tiles = #attn.tiles<block_m = 8, block_n = 8, mma = none>}
        : tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32> -> tensor<1x1x?x16xf32>, tensor<1x1x?xf32>
    bufferization.materialize_in_destination %l in writable %lse : (tensor<1x1x?xf32>, memref<1x1x?xf32, strided<[?, ?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// A cast: blocks of block_size elements, 256 threads each, no shared
// memory; thread t of block x converts elements x * block_size + t + 256 i,
// its first multi-index computed once and stepped by 256 without dividing.
// The element count is recomputed inside the launch, whose body may read
// only the kernel's buffers once outlined.

// CHECK-LABEL: func.func @cast(
// CHECK-SAME:    %[[IN:[a-z0-9]+]]: memref<?x8xf32, strided<[?, ?], offset: ?>>,
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<?x8xbf16, strided<[?, ?], offset: ?>>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG:     %[[C1024:.*]] = arith.constant 1024 : index
// CHECK-DAG:     %[[NO_SHARED:.*]] = arith.constant 0 : i32
// CHECK:         %[[ROWS:.*]] = memref.dim %[[IN]], %[[C0]]
// CHECK:         %[[COUNT:.*]] = arith.muli %[[ROWS]], %[[C8]] : index
// CHECK:         %[[BLOCKS:.*]] = arith.ceildivui %[[COUNT]], %[[C1024]] : index
// CHECK:         gpu.launch blocks(%[[BX:[a-z0-9_]+]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (%{{[a-z0-9_]+}} = %[[BLOCKS]], %{{[a-z0-9_]+}} = %[[C1]], %{{[a-z0-9_]+}} = %[[C1]])
// CHECK-SAME:      threads(%[[TID:[a-z0-9_]+]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (%{{[a-z0-9_]+}} = %[[C256]], %{{[a-z0-9_]+}} = %[[C1]], %{{[a-z0-9_]+}} = %[[C1]])
// CHECK-SAME:      dynamic_shared_memory_size %[[NO_SHARED]] {
// CHECK-NEXT:      %[[INNER_ROWS:.*]] = memref.dim %[[IN]], %[[C0]]
// CHECK-NEXT:      %[[INNER_COUNT:.*]] = arith.muli %[[INNER_ROWS]], %[[C8]] : index
// CHECK-NEXT:      %[[FIRST:.*]] = arith.muli %[[BX]], %[[C1024]] : index
// CHECK-NEXT:      %[[NEXT:.*]] = arith.addi %[[FIRST]], %[[C1024]] : index
// CHECK-NEXT:      %[[END:.*]] = arith.minui %[[INNER_COUNT]], %[[NEXT]] : index
// CHECK-NEXT:      %[[START:.*]] = arith.addi %[[FIRST]], %[[TID]] : index
// CHECK-NEXT:      %[[COL0:.*]] = arith.remui %[[START]], %[[C8]] : index
// CHECK-NEXT:      %[[ROW0:.*]] = arith.divui %[[START]], %[[C8]] : index
// CHECK-NEXT:      scf.for %{{.*}} = %[[START]] to %[[END]] step %[[C256]] iter_args(%[[ROW:.*]] = %[[ROW0]], %[[COL:.*]] = %[[COL0]]) -> (index, index) {
// CHECK-NEXT:        %[[X:.*]] = memref.load %[[IN]][%[[ROW]], %[[COL]]]
// CHECK-NEXT:        %[[Y:.*]] = arith.truncf %[[X]] : f32 to bf16
// CHECK-NEXT:        memref.store %[[Y]], %[[OUT]][%[[ROW]], %[[COL]]]
// CHECK-NOT:         arith.divui
// CHECK:           gpu.terminator
module @attnc_kernels {
  func.func @cast(%in: memref<?x8xf32, strided<[?, ?], offset: ?>>,
                  %out: memref<?x8xbf16, strided<[?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %in : memref<?x8xf32, strided<[?, ?], offset: ?>> to tensor<?x8xf32>
    %1 = attn.cast %0 {block_size = 1024 : i64} : tensor<?x8xf32> to tensor<?x8xbf16>
    bufferization.materialize_in_destination %1 in writable %out : (tensor<?x8xbf16>, memref<?x8xbf16, strided<[?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// A cast of the dq accumulator's swizzled rows (width 32) in a whole block
// of buffers with aligned rows (dq is written into a heads view of the
// merged gradient, so its rows suffice, not density): a thread takes 16
// columns, 4 loads of a 16-byte slot (a pair of columns and the pair 8
// columns on), gathered into the first 8
// columns and the next 8, one 16-byte store each; other blocks convert
// element by element.

// CHECK-LABEL: func.func @cast_swizzled(
// CHECK-SAME:    %{{[a-z0-9]+}}: memref<?x4x?x64xf32, {{.*}}>, %[[OUT:[a-z0-9]+]]: memref<?x4x?x64xbf16
// CHECK:         gpu.launch
// CHECK:           %{{.*}}, %{{.*}}, %{{.*}}:4, %[[STRIDES:.*]]:4 = memref.extract_strided_metadata %[[OUT]]
// CHECK-NEXT:      arith.cmpi eq, %[[STRIDES]]#3, %c1 : index
// CHECK-NOT:       arith.cmpi eq, %[[STRIDES]]#2
// CHECK:           arith.muli %[[STRIDES]]#2, %c2 : index
// CHECK:           scf.if %{{.*}} {
// CHECK-COUNT-4:     vector.load {{.*}} : memref<?x4x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, vector<4xf32>
// CHECK:             %[[A:.*]] = vector.shuffle %[[S0:.*]], %[[S1:.*]] [0, 1, 4, 5]
// CHECK:             %[[B:.*]] = vector.shuffle %[[S2:.*]], %[[S3:.*]] [0, 1, 4, 5]
// CHECK:             %[[LOW:.*]] = vector.shuffle %[[A]], %[[B]] [0, 1, 2, 3, 4, 5, 6, 7]
// CHECK:             %[[LOW16:.*]] = arith.truncf %[[LOW]] : vector<8xf32> to vector<8xbf16>
// CHECK:             vector.store %[[LOW16]], {{.*}} vector<8xbf16>
// CHECK:             vector.shuffle %[[S0]], %[[S1]] [2, 3, 6, 7]
// CHECK:             vector.shuffle %[[S2]], %[[S3]] [2, 3, 6, 7]
// CHECK:             vector.store {{.*}} vector<8xbf16>
// CHECK:           } else {
// CHECK:             memref.load
module @attnc_kernels {
  func.func @cast_swizzled(%a: memref<?x4x?x64xf32, strided<[?, ?, ?, ?], offset: ?>>,
                           %out: memref<?x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %a : memref<?x4x?x64xf32, strided<[?, ?, ?, ?], offset: ?>> to tensor<?x4x?x64xf32>
    %1 = attn.cast %0 {in_row_swizzle = 32 : i64, block_size = 4096 : i64} : tensor<?x4x?x64xf32> to tensor<?x4x?x64xbf16>
    bufferization.materialize_in_destination %1 in writable %out : (tensor<?x4x?x64xbf16>, memref<?x4x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// An elementwise kernel: the cast's grid and threads, the body inlined per
// element between the widened loads and the rounded store. In a whole
// block a thread's 4 elements are straight-line code, their loads first so
// that they are in flight together; the last block loops.

// CHECK-LABEL: func.func @elementwise(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<?x8xf16, strided<[?, ?], offset: ?>>,
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<?x8xf32, strided<[?, ?], offset: ?>>)
// CHECK:         gpu.launch
// CHECK:           %[[COUNT:.*]] = arith.subi
// CHECK:           %[[WHOLE:.*]] = arith.cmpi eq, %[[COUNT]], %{{.*}} : index
// CHECK:           scf.if %[[WHOLE]] {
// CHECK-COUNT-4:     memref.load %[[X]]
// CHECK-NOT:         memref.store
// CHECK:             math.exp
// CHECK-NEXT:        memref.store
// CHECK:           } else {
// CHECK:           scf.for %{{.*}} iter_args(%[[ROW:.*]] = %{{.*}}, %[[COL:.*]] = %{{.*}}) -> (index, index) {
// CHECK-NEXT:        %[[A:.*]] = memref.load %[[X]][%[[ROW]], %[[COL]]]
// CHECK-NEXT:        %[[AW:.*]] = arith.extf %[[A]] : f16 to f32
// CHECK-NEXT:        %[[E:.*]] = math.exp %[[AW]] : f32
// CHECK-NEXT:        memref.store %[[E]], %[[OUT]][%[[ROW]], %[[COL]]]
module @attnc_kernels {
  func.func @elementwise(%x: memref<?x8xf16, strided<[?, ?], offset: ?>>,
                         %out: memref<?x8xf32, strided<[?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %x : memref<?x8xf16, strided<[?, ?], offset: ?>> to tensor<?x8xf16>
    %1 = attn.elementwise %0 {block_size = 1024 : i64} : tensor<?x8xf16> -> tensor<?x8xf32> {
    ^bb0(%a: f32):
      %e = math.exp %a : f32
      attn.yield %e : f32
    }
    bufferization.materialize_in_destination %1 in writable %out : (tensor<?x8xf32>, memref<?x8xf32, strided<[?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// With 8 elements per thread (block_size 2048 over 256 threads), a whole
// block whose buffers are all dense and 16-byte aligned is a vector chunk
// per thread: thread t takes the 8 elements from first + 8 t of the
// flattened buffers, one vector load per input and one vector store per
// result. Any other block (the last, or unaligned buffers) loops over its
// elements one at a time: the straight-line run of the element path above
// would set the registers of the whole kernel (H200 SwiGLU: 68 against 32
// registers per thread, 0.22 against 0.15 ms).

// CHECK-LABEL: func.func @elementwise_chunks(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<?x64xbf16, strided<[?, ?], offset: ?>>,
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<?x64xbf16, strided<[?, ?], offset: ?>>)
// CHECK:         gpu.launch blocks(%[[BX:[a-z0-9_]+]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in
// CHECK-SAME:      threads(%[[TID:[a-z0-9_]+]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in
// CHECK:           %[[FIRST:.*]] = arith.muli %[[BX]], %[[C2048:.*]] : index
// CHECK:           memref.extract_aligned_pointer_as_index %[[X]]
// CHECK:           memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK:           scf.if %{{.*}} {
// CHECK:             %[[OFFSET:.*]] = arith.muli %[[TID]], %[[C8:.*]] : index
// CHECK:             %[[P:.*]] = arith.addi %[[FIRST]], %[[OFFSET]] : index
// CHECK:             %[[XV:.*]] = memref.reinterpret_cast %[[X]]
// CHECK:             vector.load %[[XV]][%[[P]]] {alignment = 16 : i64} : memref<?xbf16, strided<[1], offset: ?>>, vector<8xbf16>
// CHECK-COUNT-8:     math.exp
// CHECK:             vector.store %{{.*}}[%[[P]]] {alignment = 16 : i64} : memref<?xbf16, strided<[1], offset: ?>>, vector<8xbf16>
// CHECK:           } else {
// CHECK-NOT:         scf.if
// CHECK:             scf.for
// CHECK-NEXT:          memref.load %[[X]]
// CHECK-NOT:         memref.load
// CHECK:           }
module @attnc_kernels {
  func.func @elementwise_chunks(%x: memref<?x64xbf16, strided<[?, ?], offset: ?>>,
                                %out: memref<?x64xbf16, strided<[?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %x : memref<?x64xbf16, strided<[?, ?], offset: ?>> to tensor<?x64xbf16>
    %1 = attn.elementwise %0 {block_size = 2048 : i64} : tensor<?x64xbf16> -> tensor<?x64xbf16> {
    ^bb0(%a: f32):
      %e = math.exp %a : f32
      attn.yield %e : f32
    }
    bufferization.materialize_in_destination %1 in writable %out : (tensor<?x64xbf16>, memref<?x64xbf16, strided<[?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// An identity cast (a copy) does not fold away.

// CHECK-LABEL: func.func @copy(
// CHECK-SAME:    %[[IN:[a-z0-9]+]]: memref<4x4xf16, strided<[?, ?], offset: ?>>,
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<4x4xf16, strided<[?, ?], offset: ?>>)
// CHECK:         gpu.launch
// CHECK:           %[[X:.*]] = memref.load %[[IN]]
// CHECK-NEXT:      memref.store %[[X]], %[[OUT]]
module @attnc_kernels {
  func.func @copy(%in: memref<4x4xf16, strided<[?, ?], offset: ?>>,
                  %out: memref<4x4xf16, strided<[?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %in : memref<4x4xf16, strided<[?, ?], offset: ?>> to tensor<4x4xf16>
    %1 = attn.cast %0 {block_size = 1024 : i64} : tensor<4x4xf16> to tensor<4x4xf16>
    bufferization.materialize_in_destination %1 in writable %out : (tensor<4x4xf16>, memref<4x4xf16, strided<[?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// attention_grad_delta: a warp per row of the block (its 4 warps take rows
// warp, warp + 4, ... of its 48: a block's rows need not match its 128
// threads), the lanes on consecutive columns: 80 columns are two
// full steps of 32 and a last one for lanes below 16; the lanes' sums meet
// by xor shuffles and lane 0 stores delta; the dq accumulator's row is
// zeroed by the lanes in turn.

// CHECK-LABEL: func.func @grad_delta(
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<2x4x?x80xbf16, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK-SAME:    %[[DOUT:[a-z0-9]+]]: memref<2x4x?x80xbf16, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK-SAME:    %[[DELTA:[a-z0-9]+]]: memref<2x4x?xf32, strided<[?, ?, ?], offset: ?>>,
// CHECK-SAME:    %[[ACCUM:[a-z0-9]+]]: memref<2x4x?x64xf32, strided<[?, ?, ?, ?], offset: ?>>)
// CHECK:         gpu.launch blocks(%{{.*}}, %[[HEAD:[a-z0-9_]+]], %[[BATCH:[a-z0-9_]+]]) in ({{.*}}) threads(%[[TID:[a-z0-9_]+]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c128,
// CHECK:           %[[FIRST:.*]] = arith.muli %{{.*}}, %c48 : index
// CHECK:           %[[ROWS:.*]] = arith.minui %{{.*}}, %c48 : index
// CHECK-DAG:       %[[LANE:.*]] = arith.remui %[[TID]], %c32 : index
// CHECK-DAG:       %[[WARP:.*]] = arith.divui %[[TID]], %c32 : index
// CHECK:           scf.for %[[R:.*]] = %[[WARP]] to %[[ROWS]] step %c4 {
// CHECK:             %[[ROW:.*]] = arith.addi %[[FIRST]], %[[R]] : index
// CHECK:             %[[FULL:.*]] = scf.for %[[K:.*]] = %c0 to %c2 step %c1 iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK:               %[[COL:.*]] = arith.addi %[[LANE]], %{{.*}} : index
// CHECK-DAG:           memref.load %[[OUT]][%[[BATCH]], %[[HEAD]], %[[ROW]], %[[COL]]]
// CHECK-DAG:           memref.load %[[DOUT]][%[[BATCH]], %[[HEAD]], %[[ROW]], %[[COL]]]
// CHECK:             %[[IN_ROW:.*]] = arith.cmpi ult, %[[LANE]], %c16 : index
// CHECK:             %[[SUM:.*]] = scf.if %[[IN_ROW]] -> (f32) {
// CHECK:             gpu.shuffle  xor %[[SUM]], %c16_i32, %c32_i32 : f32
// CHECK:             gpu.shuffle  xor %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK:             gpu.shuffle  xor %{{.*}}, %c4_i32, %c32_i32 : f32
// CHECK:             gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK:             gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK:             %[[LANE0:.*]] = arith.cmpi eq, %[[LANE]], %c0 : index
// CHECK:             scf.if %[[LANE0]] {
// CHECK:               memref.store %{{.*}}, %[[DELTA]][%[[BATCH]], %[[HEAD]], %[[ROW]]]
// CHECK:             scf.for %[[D:.*]] = %[[LANE]] to %c64 step %c32 {
// CHECK:               memref.store %{{.*}}, %[[ACCUM]][%[[BATCH]], %[[HEAD]], %[[ROW]], %[[D]]]
module @attnc_kernels {
  func.func @grad_delta(%out: memref<2x4x?x80xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                        %dout: memref<2x4x?x80xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                        %delta: memref<2x4x?xf32, strided<[?, ?, ?], offset: ?>>,
                        %accum: memref<2x4x?x64xf32, strided<[?, ?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %out : memref<2x4x?x80xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<2x4x?x80xbf16>
    %1 = bufferization.to_tensor %dout : memref<2x4x?x80xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<2x4x?x80xbf16>
    %d, %a = attn.attention_grad_delta %0, %1 {block_size = 48 : i64} : tensor<2x4x?x80xbf16>, tensor<2x4x?x80xbf16> -> tensor<2x4x?xf32>, tensor<2x4x?x64xf32>
    bufferization.materialize_in_destination %d in writable %delta : (tensor<2x4x?xf32>, memref<2x4x?xf32, strided<[?, ?, ?], offset: ?>>) -> ()
    bufferization.materialize_in_destination %a in writable %accum : (tensor<2x4x?x64xf32>, memref<2x4x?x64xf32, strided<[?, ?, ?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// With head dim 128 and rows of out and dout at 16-byte boundaries with a
// unit stride (dense, or heads views of [B, N, H * D] values: no density
// test), a row is 16 lanes of one 8-element vector load each, so a warp
// takes 2 rows at once (rows 2 warp + lane / 16, stepping by 8) and the
// shuffles stay below 16, within each row's lanes; lane 0 of each row
// stores delta and its lanes zero the dq accumulator's row (64 wide) in
// turn. Other buffers take the path above.

// CHECK-LABEL: func.func @grad_delta_chunks(
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<2x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK-SAME:    %[[DOUT:[a-z0-9]+]]: memref<2x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK-SAME:    %[[DELTA:[a-z0-9]+]]: memref<2x4x?xf32, strided<[?, ?, ?], offset: ?>>,
// CHECK-SAME:    %[[ACCUM:[a-z0-9]+]]: memref<2x4x?x64xf32, strided<[?, ?, ?, ?], offset: ?>>)
// CHECK:         gpu.launch
// CHECK-DAG:       %[[LANE:.*]] = arith.remui %{{.*}}, %c32 : index
// CHECK-DAG:       %[[WARP:.*]] = arith.divui %{{.*}}, %c32 : index
// CHECK:           %{{.*}}, %{{.*}}, %{{.*}}:4, %[[STRIDES:.*]]:4 = memref.extract_strided_metadata %[[OUT]]
// CHECK-NEXT:      arith.cmpi eq, %[[STRIDES]]#3, %c1 : index
// CHECK-NOT:       arith.cmpi eq, %[[STRIDES]]#2
// CHECK:           arith.muli %[[STRIDES]]#2, %c2 : index
// CHECK:           scf.if %{{.*}} {
// CHECK-DAG:         %[[SUB:.*]] = arith.divui %[[LANE]], %c16 : index
// CHECK-DAG:         %[[PART:.*]] = arith.remui %[[LANE]], %c16 : index
// CHECK-DAG:         %[[COL:.*]] = arith.muli %[[PART]], %c8 : index
// CHECK-DAG:         %[[R0:.*]] = arith.muli %[[WARP]], %c2 : index
// CHECK:             scf.for %[[R:.*]] = %[[R0]] to %{{.*}} step %c8 {
// CHECK:               %[[ROW_IN:.*]] = arith.addi %[[R]], %[[SUB]] : index
// CHECK:               %[[TERM:.*]] = scf.if %{{.*}} -> (f32) {
// CHECK:                 vector.load %{{.*}}[%[[BATCH:.*]], %[[HEAD:.*]], %{{.*}}, %[[COL]]] {alignment = 16 : i64} : memref<2x4x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, vector<8xbf16>
// CHECK:                 vector.load
// CHECK:                 vector.reduction <add>
// CHECK-NOT:           gpu.shuffle  xor %{{.*}}, %c16_i32
// CHECK:               gpu.shuffle  xor %[[TERM]], %c8_i32, %c32_i32 : f32
// CHECK:               gpu.shuffle  xor %{{.*}}, %c4_i32, %c32_i32 : f32
// CHECK:               gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK:               gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK:               scf.if %{{.*}} {
// CHECK:                 arith.cmpi eq, %[[PART]], %c0 : index
// CHECK:                 memref.store %{{.*}}, %[[DELTA]]
// CHECK:                 scf.for %[[D:.*]] = %[[PART]] to %c64 step %c16 {
// CHECK:                   memref.store %{{.*}}, %[[ACCUM]][%{{.*}}, %{{.*}}, %{{.*}}, %[[D]]]
// CHECK:           } else {
// CHECK:             scf.for %{{.*}} = %[[WARP]] to %{{.*}} step %c4 {
module @attnc_kernels {
  func.func @grad_delta_chunks(%out: memref<2x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                               %dout: memref<2x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                               %delta: memref<2x4x?xf32, strided<[?, ?, ?], offset: ?>>,
                               %accum: memref<2x4x?x64xf32, strided<[?, ?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %out : memref<2x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<2x4x?x128xbf16>
    %1 = bufferization.to_tensor %dout : memref<2x4x?x128xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<2x4x?x128xbf16>
    %d, %a = attn.attention_grad_delta %0, %1 {block_size = 128 : i64} : tensor<2x4x?x128xbf16>, tensor<2x4x?x128xbf16> -> tensor<2x4x?xf32>, tensor<2x4x?x64xf32>
    bufferization.materialize_in_destination %d in writable %delta : (tensor<2x4x?xf32>, memref<2x4x?xf32, strided<[?, ?, ?], offset: ?>>) -> ()
    bufferization.materialize_in_destination %a in writable %accum : (tensor<2x4x?x64xf32>, memref<2x4x?x64xf32, strided<[?, ?, ?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// RMSNorm: a warp per row, 8 rows per block of 256 threads. Each lane sums
// the squares of its columns (lane, lane + 32), the warp's sums meet by xor
// shuffles, lane 0 stores rstd and every lane scales its columns.

// CHECK-LABEL: func.func @rms_norm(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<?x64xbf16, strided<[?, ?], offset: ?>>,
// CHECK-SAME:    %[[W:[a-z0-9]+]]: memref<64xbf16, strided<[?], offset: ?>>,
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<?x64xbf16, strided<[?, ?], offset: ?>>,
// CHECK-SAME:    %[[RSTD:[a-z0-9]+]]: memref<?xf32, strided<[?], offset: ?>>)
// CHECK:         %[[ROWS:.*]] = memref.dim %[[X]], %c0
// CHECK:         %[[BLOCKS:.*]] = arith.ceildivui %[[ROWS]], %c8 : index
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}} = %[[BLOCKS]], {{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %c256,
// CHECK:           %[[LANE:.*]] = arith.remui %[[T]], %c32 : index
// CHECK:           %[[WARP:.*]] = arith.divui %[[T]], %c32 : index
// CHECK:           scf.for %{{.*}} = %[[WARP]] to %{{.*}} step %c8 {
// CHECK:             %[[SQ:.*]] = scf.for %{{.*}} = %c0 to %c2 step %c1 iter_args
// CHECK:             %[[S1:.*]], %{{.*}} = gpu.shuffle  xor %[[SQ]], %c16_i32, %c32_i32 : f32
// CHECK-COUNT-4:     gpu.shuffle  xor
// CHECK:             %[[SQRT:.*]] = math.sqrt
// CHECK-NEXT:        %[[R:.*]] = arith.divf %{{.*}}, %[[SQRT]] : f32
// CHECK-NEXT:        %[[LANE0:.*]] = arith.cmpi eq, %[[LANE]], %c0 : index
// CHECK-NEXT:        scf.if %[[LANE0]] {
// CHECK-NEXT:          memref.store %[[R]], %[[RSTD]]
// CHECK:             scf.for %[[D:.*]] = %[[LANE]] to %c64 step %c32 {
// CHECK:               memref.store %{{.*}}, %[[OUT]][%{{.*}}, %[[D]]]
module @attnc_kernels {
  func.func @rms_norm(%x: memref<?x64xbf16, strided<[?, ?], offset: ?>>,
                      %w: memref<64xbf16, strided<[?], offset: ?>>,
                      %out: memref<?x64xbf16, strided<[?, ?], offset: ?>>,
                      %rstd: memref<?xf32, strided<[?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %x : memref<?x64xbf16, strided<[?, ?], offset: ?>> to tensor<?x64xbf16>
    %1 = bufferization.to_tensor %w : memref<64xbf16, strided<[?], offset: ?>> to tensor<64xbf16>
    %2, %3 = attn.rms_norm %0, %1 {epsilon = 1.0e-06 : f32, block_size = 8 : i64} : tensor<?x64xbf16>, tensor<64xbf16> -> tensor<?x64xbf16>, tensor<?xf32>
    bufferization.materialize_in_destination %2 in writable %out : (tensor<?x64xbf16>, memref<?x64xbf16, strided<[?, ?], offset: ?>>) -> ()
    bufferization.materialize_in_destination %3 in writable %rstd : (tensor<?xf32>, memref<?xf32, strided<[?], offset: ?>>) -> ()
    return
  }
}

// -----

// Rows of 512 in the vector form, where every buffer is dense and 16-byte
// aligned: each lane takes 2 chunks of 8 columns, the warp's chunks
// consecutive (lane l at columns 8 l and 256 + 8 l), summed as vectors and
// then across the chunk before the shuffles; the element form otherwise.

// CHECK-LABEL: func.func @rms_norm_chunks(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<?x512xbf16, strided<[?, ?], offset: ?>>,
// CHECK:         gpu.launch
// CHECK:           scf.if %{{.*}} {
// CHECK:             %[[VX:.*]] = memref.reinterpret_cast %[[X]] {{.*}} to memref<?x512xbf16, strided<[?, 1], offset: ?>>
// CHECK:             scf.for
// CHECK:               %[[C0:.*]] = arith.muli %[[LANE:.*]], %c8 : index
// CHECK-NEXT:          vector.load %[[VX]][%{{.*}}, %[[C0]]] {alignment = 16 : i64} : memref<?x512xbf16, strided<[?, 1], offset: ?>>, vector<8xbf16>
// CHECK:               %[[C1:.*]] = arith.addi %[[LANE]], %c32 : index
// CHECK-NEXT:          %[[C1X8:.*]] = arith.muli %[[C1]], %c8 : index
// CHECK-NEXT:          vector.load %[[VX]][%{{.*}}, %[[C1X8]]] {alignment = 16 : i64}
// CHECK:               vector.reduction <add>, %{{.*}} : vector<8xf32> into f32
// CHECK-COUNT-5:       gpu.shuffle  xor
// CHECK:               scf.for %{{.*}} = %c0 to %c2 step %c1 {
// CHECK:                 vector.store %{{.*}} {alignment = 16 : i64} : memref<?x512xbf16, strided<[?, 1], offset: ?>>, vector<8xbf16>
// CHECK:           } else {
// CHECK:             scf.for %{{.*}} = %[[LANE]] to %c512 step %c32 {
module @attnc_kernels {
  func.func @rms_norm_chunks(%x: memref<?x512xbf16, strided<[?, ?], offset: ?>>,
                             %w: memref<512xbf16, strided<[?], offset: ?>>,
                             %out: memref<?x512xbf16, strided<[?, ?], offset: ?>>,
                             %rstd: memref<?xf32, strided<[?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %x : memref<?x512xbf16, strided<[?, ?], offset: ?>> to tensor<?x512xbf16>
    %1 = bufferization.to_tensor %w : memref<512xbf16, strided<[?], offset: ?>> to tensor<512xbf16>
    %2, %3 = attn.rms_norm %0, %1 {epsilon = 1.0e-06 : f32, block_size = 8 : i64} : tensor<?x512xbf16>, tensor<512xbf16> -> tensor<?x512xbf16>, tensor<?xf32>
    bufferization.materialize_in_destination %2 in writable %out : (tensor<?x512xbf16>, memref<?x512xbf16, strided<[?, ?], offset: ?>>) -> ()
    bufferization.materialize_in_destination %3 in writable %rstd : (tensor<?xf32>, memref<?xf32, strided<[?], offset: ?>>) -> ()
    return
  }
}

// -----

// A cross-entropy chunk's rows of 2632 classes in one pass, in the vector
// form: each lane keeps its largest logit so far and the sum of exp(logit -
// it). Of its 10 chunks of 8 columns, a loop loads 4 at a time before it
// rescales the sum once, then 2 more follow, then a tail of 72 columns
// (2560 on) one at a time; the lanes' pairs merge by shuffles. A max that
// is still -inf is subtracted as 0.

// CHECK-LABEL: func.func @cross_entropy_partial(
// CHECK:         scf.if %{{.*}} {
// CHECK:           %[[GROUPS:.*]]:2 = scf.for %{{.*}} = %c0 to %c8 step %c4 iter_args(%[[MAX:.*]] = %{{.*}}, %[[SUM:.*]] = %{{.*}}) -> (f32, f32) {
// CHECK-COUNT-4:     vector.load {{.*}} vector<8xbf16>
// CHECK:             %[[NEW:.*]] = arith.maximumf
// CHECK-NEXT:        %[[EMPTY:.*]] = arith.cmpf oeq, %[[NEW]], %cst
// CHECK-NEXT:        %[[SHIFT:.*]] = arith.select %[[EMPTY]], %{{.*}}, %[[NEW]] : f32
// CHECK-NEXT:        %[[OLD:.*]] = arith.subf %[[MAX]], %[[SHIFT]] : f32
// CHECK-NEXT:        %[[SCALE:.*]] = math.exp %[[OLD]] : f32
// CHECK-NEXT:        arith.mulf %[[SUM]], %[[SCALE]] : f32
// CHECK-COUNT-4:     math.exp %{{.*}} : vector<8xf32>
// CHECK:             scf.yield %[[NEW]], %{{.*}} : f32, f32
// CHECK-COUNT-2:   vector.load {{.*}} vector<8xbf16>
// CHECK:           %[[TAIL:.*]] = arith.addi %{{.*}}, %c2560 : index
// CHECK:           %[[LANE:.*]]:2 = scf.for %{{.*}} = %[[TAIL]] to %c2632 step %c32 iter_args(
// CHECK:             memref.load {{.*}} : memref<?x2632xbf16, strided<[?, 1], offset: ?>>
// CHECK:           gpu.shuffle  xor %[[LANE]]#0, %c16_i32, %c32_i32 : f32
// CHECK-NEXT:      gpu.shuffle  xor %[[LANE]]#1, %c16_i32, %c32_i32 : f32
// CHECK:         } else {
module @attnc_kernels {
  func.func @cross_entropy_partial(%x: memref<?x2632xbf16, strided<[?, ?], offset: ?>>,
                                   %l: memref<?xi32, strided<[?], offset: ?>>,
                                   %p: memref<1x?xf32, strided<[?, ?], offset: ?>>,
                                   %t: memref<1x?xf32, strided<[?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %x : memref<?x2632xbf16, strided<[?, ?], offset: ?>> to tensor<?x2632xbf16>
    %1 = bufferization.to_tensor %l : memref<?xi32, strided<[?], offset: ?>> to tensor<?xi32>
    %2, %3 = attn.cross_entropy_partial %0, %1 {ignore_index = -100 : i64, vocab_offset = 8 : i64, block_size = 8 : i64} : tensor<?x2632xbf16>, tensor<?xi32> -> tensor<1x?xf32>, tensor<1x?xf32>
    bufferization.materialize_in_destination %2 in writable %p : (tensor<1x?xf32>, memref<1x?xf32, strided<[?, ?], offset: ?>>) -> ()
    bufferization.materialize_in_destination %3 in writable %t : (tensor<1x?xf32>, memref<1x?xf32, strided<[?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// The cross-entropy gradient over rows of 1352 classes in the vector form:
// a lane's 4 chunks are loaded before the first is stored, then its fifth,
// then the tail of 72 columns (1280 on); the label's column is found by
// comparing label - column with the chunk's column numbers.

// CHECK-LABEL: func.func @cross_entropy_grad(
// CHECK:         scf.if %{{.*}} {
// CHECK:           scf.for
// CHECK-COUNT-4:     vector.load {{.*}} vector<8xbf16>
// CHECK-NOT:         vector.store
// CHECK:             math.exp %{{.*}} : vector<8xf32>
// CHECK:             %[[REL:.*]] = arith.subi
// CHECK-NEXT:        %[[RELS:.*]] = vector.broadcast %[[REL]] : i32 to vector<8xi32>
// CHECK-NEXT:        %[[HIT:.*]] = arith.cmpi eq, %[[RELS]], %cst : vector<8xi32>
// CHECK-NEXT:        arith.uitofp %[[HIT]] : vector<8xi1> to vector<8xf32>
// CHECK-COUNT-4:     vector.store {{.*}} vector<8xbf16>
// CHECK:             vector.load {{.*}} vector<8xbf16>
// CHECK:             vector.store {{.*}} vector<8xbf16>
// CHECK:             %[[TAIL:.*]] = arith.addi %{{.*}}, %c1280 : index
// CHECK-NEXT:        scf.for %{{.*}} = %[[TAIL]] to %c1352 step %c32 {
// CHECK:         } else {
// CHECK:           scf.for %{{.*}} = %{{.*}} to %c1352 step %c32 {
module @attnc_kernels {
  func.func @cross_entropy_grad(%x: memref<?x1352xbf16, strided<[?, ?], offset: ?>>,
                                %l: memref<?xi32, strided<[?], offset: ?>>,
                                %s: memref<?xf32, strided<[?], offset: ?>>,
                                %g: memref<?xf32, strided<[?], offset: ?>>,
                                %out: memref<?x1352xbf16, strided<[?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %x : memref<?x1352xbf16, strided<[?, ?], offset: ?>> to tensor<?x1352xbf16>
    %1 = bufferization.to_tensor %l : memref<?xi32, strided<[?], offset: ?>> to tensor<?xi32>
    %2 = bufferization.to_tensor %s : memref<?xf32, strided<[?], offset: ?>> to tensor<?xf32>
    %3 = bufferization.to_tensor %g : memref<?xf32, strided<[?], offset: ?>> to tensor<?xf32>
    %4 = attn.cross_entropy_grad %0, %1, %2, %3 {ignore_index = -1 : i64, vocab_offset = 0 : i64, block_size = 8 : i64} : tensor<?x1352xbf16>, tensor<?xi32>, tensor<?xf32>, tensor<?xf32> -> tensor<?x1352xbf16>
    bufferization.materialize_in_destination %4 in writable %out : (tensor<?x1352xbf16>, memref<?x1352xbf16, strided<[?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// RMSNorm's gradient: a warp per partial row (8 per block), each over rows
// partial, partial + 16, ... Its partial weight sums accumulate in the
// warp's row of shared memory ([8, 64] f32, 2 KiB), zeroed first, read and
// written for every row, and stored to the partials result once at the
// end.

// CHECK-LABEL: func.func @rms_norm_grad(
// CHECK-SAME:    %[[DWP:[a-z0-9]+]]: memref<16x64xf32, strided<[?, ?], offset: ?>>)
// CHECK-DAG:     %[[BYTES:.*]] = arith.constant 2048 : i32
// CHECK:         gpu.launch {{.*}} dynamic_shared_memory_size %[[BYTES]] {
// CHECK:           %[[SHARED:.*]] = memref.view {{.*}} to memref<8x64xf32, #gpu.address_space<workgroup>>
// CHECK:           %[[WARP:.*]] = arith.divui %{{.*}}, %c32 : index
// CHECK:           scf.for %{{.*}} step %c8 {
// CHECK:             memref.store %{{.*}}, %[[SHARED]][%[[WARP]], %{{.*}}]
// CHECK:             scf.for
// CHECK:               memref.load %[[SHARED]][%[[WARP]], %{{.*}}]
// CHECK:               memref.store %{{.*}}, %[[SHARED]][%[[WARP]], %{{.*}}]
// CHECK:             scf.for %[[D:.*]] = %{{.*}} to %c64 step %c32 {
// CHECK-NEXT:          %[[SUM:.*]] = memref.load %[[SHARED]][%[[WARP]], %[[D]]]
// CHECK-NEXT:          memref.store %[[SUM]], %[[DWP]][%{{.*}}, %[[D]]]
module @attnc_kernels {
  func.func @rms_norm_grad(%x: memref<?x64xbf16, strided<[?, ?], offset: ?>>,
                           %w: memref<64xbf16, strided<[?], offset: ?>>,
                           %r: memref<?xf32, strided<[?], offset: ?>>,
                           %dy: memref<?x64xbf16, strided<[?, ?], offset: ?>>,
                           %dx: memref<?x64xbf16, strided<[?, ?], offset: ?>>,
                           %dwp: memref<16x64xf32, strided<[?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %x : memref<?x64xbf16, strided<[?, ?], offset: ?>> to tensor<?x64xbf16>
    %1 = bufferization.to_tensor %w : memref<64xbf16, strided<[?], offset: ?>> to tensor<64xbf16>
    %2 = bufferization.to_tensor %r : memref<?xf32, strided<[?], offset: ?>> to tensor<?xf32>
    %3 = bufferization.to_tensor %dy : memref<?x64xbf16, strided<[?, ?], offset: ?>> to tensor<?x64xbf16>
    %4, %5 = attn.rms_norm_grad %0, %1, %2, %3 {block_size = 8 : i64} : tensor<?x64xbf16>, tensor<64xbf16>, tensor<?xf32>, tensor<?x64xbf16> -> tensor<?x64xbf16>, tensor<16x64xf32>
    bufferization.materialize_in_destination %4 in writable %dx : (tensor<?x64xbf16>, memref<?x64xbf16, strided<[?, ?], offset: ?>>) -> ()
    bufferization.materialize_in_destination %5 in writable %dwp : (tensor<16x64xf32>, memref<16x64xf32, strided<[?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// The row sum that finishes a weight's gradient: a block of 32 warps per 32
// columns, each warp summing interleaved rows into its row of shared
// memory ([32, 32] f32, 4 KiB), then warp 0 adding the warps' sums in warp
// order.

// CHECK-LABEL: func.func @sum_rows(
// CHECK-DAG:     %[[BYTES:.*]] = arith.constant 4096 : i32
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}} = %c2, {{.*}}) threads(%{{.*}}, %{{.*}}, %{{.*}}) in ({{.*}} = %c1024, {{.*}}) dynamic_shared_memory_size %[[BYTES]] {
// CHECK:           memref.view {{.*}} to memref<32x32xf32, #gpu.address_space<workgroup>>
// CHECK:           scf.for %{{.*}} = %{{.*}} to %c512 step %c32 iter_args
// CHECK:           gpu.barrier
module @attnc_kernels {
  func.func @sum_rows(%dwp: memref<512x64xf32, strided<[?, ?], offset: ?>>,
                      %dw: memref<64xbf16, strided<[?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %dwp : memref<512x64xf32, strided<[?, ?], offset: ?>> to tensor<512x64xf32>
    %1 = attn.sum_rows %0 {block_size = 32 : i64} : tensor<512x64xf32> -> tensor<64xbf16>
    bufferization.materialize_in_destination %1 in writable %dw : (tensor<64xbf16>, memref<64xbf16, strided<[?], offset: ?>>) -> ()
    return
  }
}

// -----

// A sum of squares: each element squared before it is added.
// CHECK-LABEL: func.func @sum_squares(
// CHECK:         gpu.launch
// CHECK:           %[[V:.*]] = memref.load
// CHECK:           %[[SQ:.*]] = arith.mulf %[[V]], %[[V]] : f32
// CHECK:           arith.addf %{{.*}}, %[[SQ]] : f32
module @attnc_kernels {
  func.func @sum_squares(%g: memref<512x64xf32, strided<[?, ?], offset: ?>>,
                         %s: memref<64xf32, strided<[?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %g : memref<512x64xf32, strided<[?, ?], offset: ?>> to tensor<512x64xf32>
    %1 = attn.sum_rows %0 {squares, block_size = 32 : i64} : tensor<512x64xf32> -> tensor<64xf32>
    bufferization.materialize_in_destination %1 in writable %s : (tensor<64xf32>, memref<64xf32, strided<[?], offset: ?>>) -> ()
    return
  }
}

// -----

// attn.token_order: one block of 1024 threads. The bounds are zeroed, the
// ids counted with integer atomics, the counts summed (the threads' range
// sums through shared memory as f32 bit patterns), then each 1024-token
// chunk placed: its (id, index) pairs in shared memory, [64, 32] words,
// sorted by a bitonic sort (55 stages between barriers, from pairs 1 apart
// to the last run of 1024, ascending), a token's first place of its id
// found by halving (the first probe at place 511), then, once every bound
// is read, its place stored and its id's bound moved on by the id's last
// token, without atomics; the places of no id are set to -1.
// CHECK-LABEL: func.func @token_order(
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}} = %[[C1:.*]], {{.*}} = %[[C1]], {{.*}} = %[[C1]]) threads({{.*}}) in ({{.*}} = %c1024,
// CHECK:           memref.store %c0_i32
// CHECK:           gpu.barrier
// CHECK:           memref.atomic_rmw addi %c1_i32
// CHECK:           gpu.barrier
// CHECK:           arith.bitcast %{{.*}} : i32 to f32
// CHECK:           gpu.barrier
// CHECK:           scf.for {{.*}} step %c1024 {
// CHECK:             memref.store %{{.*}} : memref<64x32xf32, #gpu.address_space<workgroup>>
// CHECK:             memref.store %{{.*}} : memref<64x32xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:        gpu.barrier
// CHECK-NEXT:        %[[PARTNER:.*]] = arith.xori %{{.*}}, %c1 : index
// CHECK-NEXT:        %[[FIRST:.*]] = arith.cmpi ugt, %[[PARTNER]]
// CHECK-NEXT:        scf.if %[[FIRST]] {
// CHECK:               arith.cmpi sgt
// CHECK:               scf.if
// CHECK:             gpu.barrier
// CHECK:             arith.xori %{{.*}}, %c512 : index
// CHECK-NOT:         memref.atomic_rmw
// CHECK:             memref.load %{{.*}}[%c15, %c31]
// CHECK-NOT:         memref.atomic_rmw
// CHECK:             gpu.barrier
// CHECK:             scf.if
// CHECK:               memref.store
// CHECK:               scf.if
// CHECK-NOT:         memref.atomic_rmw
// CHECK:             gpu.barrier
// CHECK:           }
// CHECK:           gpu.barrier
// CHECK:           memref.store %c-1_i32
module @attnc_kernels {
  func.func @token_order(%i: memref<?xi32, strided<[?], offset: ?>>,
                         %o: memref<?xi32, strided<[?], offset: ?>>,
                         %b: memref<41xi32, strided<[?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %i : memref<?xi32, strided<[?], offset: ?>> to tensor<?xi32>
    %1, %2 = attn.token_order %0 : tensor<?xi32> -> tensor<?xi32>, tensor<41xi32>
    bufferization.materialize_in_destination %1 in writable %o : (tensor<?xi32>, memref<?xi32, strided<[?], offset: ?>>) -> ()
    bufferization.materialize_in_destination %2 in writable %b : (tensor<41xi32>, memref<41xi32, strided<[?], offset: ?>>) -> ()
    return
  }
}

// -----

// The embedding gradient: a warp sums 32 slices of 64 columns, far apart
// (40 rows of 80 columns: 80 slices, 3 items, one block of 8 warps; item i
// takes slices i, i + 3, ...). Lane k loads the bounds of slice k's row
// (clamped to the last slice), and the slices take them in turn by
// shuffles. Per slice, a lane loads one of 32 places and splits its token
// (clamped to the tokens) into the batch and position of dout [?, ?, 80]
// (the only divisions), the warp's 32 tokens' indices come by shuffles,
// every load of the 32 rows goes out before the adds, and a place past the
// row's end adds nothing.
// CHECK-LABEL: func.func @embedding_grad(
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}} = %c1, {{.*}}) threads({{.*}}) in ({{.*}} = %c256,
// CHECK:           arith.muli %{{.*}}, %c3 : index
// CHECK:           %[[SLICE:.*]] = arith.minui %{{.*}}, %c79 : index
// CHECK:           %[[OWN:.*]] = arith.divui %[[SLICE]], %c2 : index
// CHECK:           %[[NEXT:.*]] = arith.addi %[[OWN]], %c1
// CHECK:           memref.load %{{.*}}[%[[NEXT]]]
// CHECK:           memref.load %{{.*}}[%[[OWN]]]
// CHECK:           scf.for %[[K:.*]] = %c0 to %{{.*}} step %c1 {
// CHECK:             arith.muli %[[K]], %c3 : index
// CHECK:             %[[LANE:.*]] = arith.index_castui %[[K]] : index to i32
// CHECK:             gpu.shuffle  idx %{{.*}}, %[[LANE]], %c32_i32 : i32
// CHECK:             gpu.shuffle  idx
// CHECK:             %{{.*}}:2 = scf.for {{.*}} step %c32 iter_args({{.*}}) -> (f32, f32) {
// CHECK:               memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<?x?xi32
// CHECK:               %[[POSITION:.*]] = arith.remui
// CHECK:               %[[BATCH:.*]] = arith.divui
// CHECK:               %[[B:.*]] = arith.index_castui %[[BATCH]] : index to i32
// CHECK:               %[[N:.*]] = arith.index_castui %[[POSITION]] : index to i32
// CHECK:               gpu.shuffle  idx %[[B]], %c0_i32, %c32_i32 : i32
// CHECK:               gpu.shuffle  idx %[[N]], %c0_i32, %c32_i32 : i32
// CHECK-NOT:           arith.divui
// CHECK:               gpu.shuffle  idx %[[N]], %c31_i32, %c32_i32 : i32
// CHECK-NOT:           gpu.shuffle
// CHECK:               arith.addf
// CHECK:               arith.select
// CHECK:               scf.yield
module @attnc_kernels {
  func.func @embedding_grad(%o: memref<?x?xi32, strided<[?, ?], offset: ?>>,
                            %b: memref<41xi32, strided<[?], offset: ?>>,
                            %d: memref<?x?x80xbf16, strided<[?, ?, ?], offset: ?>>,
                            %t: memref<40x80xf32, strided<[?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %o : memref<?x?xi32, strided<[?, ?], offset: ?>> to tensor<?x?xi32>
    %1 = bufferization.to_tensor %b : memref<41xi32, strided<[?], offset: ?>> to tensor<41xi32>
    %2 = bufferization.to_tensor %d : memref<?x?x80xbf16, strided<[?, ?, ?], offset: ?>> to tensor<?x?x80xbf16>
    %3 = attn.embedding_grad %0, %1, %2 {block_size = 8 : i64} : tensor<?x?xi32>, tensor<41xi32>, tensor<?x?x80xbf16> -> tensor<40x80xf32>
    bufferization.materialize_in_destination %3 in writable %t : (tensor<40x80xf32>, memref<40x80xf32, strided<[?, ?], offset: ?>>) -> ()
    return
  }
}
