// RUN: attn-opt %s -split-input-file --convert-attn-to-host --attn-host-block-ranges | FileCheck %s

// (convert-attn-to-host only matters to the last chunk, whose kernel is
// still an attn op; the others hold their scf.forall grids already.)

// A host kernel takes the linear block range [begin, end) after its
// buffers and runs those blocks of its grid in a loop, the ids delinearized
// with x fastest; a static allocation of the block (with its one dealloc)
// moves out of the loop, a dynamic one stays. The grid moves to the
// program: each launch of the kernel gets it, computed from the launch's
// own buffers; the constant `<kernel>_entry_grid` records it for the
// runtime as {words, extents, then per extent: constant, divisor, factor
// count, (argument, dim) per factor}.

// CHECK-LABEL: func.func @prog(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<?x8xf32> {{.*}}, %[[Y:[a-z0-9]+]]: memref<?x8xf32>
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG:     %[[N:.*]] = memref.dim %[[X]], %[[C0]] : memref<?x8xf32>
// CHECK:         attnrt.launch @attnc_kernels::@k grid(%[[N]], %[[C4]], %[[C3]]) (%[[X]], %[[Y]]) : memref<?x8xf32>, memref<?x8xf32>
// CHECK-DAG:     %[[N2:.*]] = memref.dim %[[Y]], %{{.*}} : memref<?x8xf32>
// CHECK:         attnrt.launch @attnc_kernels::@k grid(%[[N2]], %{{.*}}, %{{.*}}) (%[[Y]], %[[X]]) : memref<?x8xf32>, memref<?x8xf32>
// CHECK-NEXT:    return

// CHECK-LABEL: module @attnc_kernels {
// CHECK:         func.func @k(
// CHECK-SAME:      %[[A:[a-z0-9]+]]: memref<?x8xf32>, %[[B:[a-z0-9]+]]: memref<?x8xf32>,
// CHECK-SAME:      %[[BEGIN:[a-z0-9]+]]: index, %[[END:[a-z0-9]+]]: index)
// CHECK-SAME:      attributes {attnrt.kernel, llvm.emit_c_interface} {
// CHECK-DAG:       %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:       %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:       %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:       %[[NX:.*]] = memref.dim %[[A]], %[[C0]]
// CHECK:           %[[TILE:.*]] = memref.alloc() : memref<16xf32>
// CHECK-NEXT:      scf.for %[[ID:.*]] = %[[BEGIN]] to %[[END]] step %[[C1]] {
// CHECK-NEXT:        %[[X_ID:.*]] = arith.remui %[[ID]], %[[NX]] : index
// CHECK-NEXT:        %[[YZ:.*]] = arith.divui %[[ID]], %[[NX]] : index
// CHECK-NEXT:        %[[Y_ID:.*]] = arith.remui %[[YZ]], %[[C4]] : index
// CHECK-NEXT:        %[[Z_ID:.*]] = arith.divui %[[YZ]], %[[C4]] : index
// CHECK-NEXT:        %[[DYN:.*]] = memref.alloc(%[[X_ID]]) : memref<?xf32>
// CHECK-NEXT:        %[[V:.*]] = memref.load %[[A]][%[[X_ID]], %[[Y_ID]]]
// CHECK-NEXT:        memref.store %[[V]], %[[TILE]][%[[Z_ID]]]
// CHECK-NEXT:        memref.store %[[V]], %[[B]][%[[X_ID]], %[[Y_ID]]]
// CHECK-NEXT:        memref.dealloc %[[DYN]]
// CHECK-NEXT:      }
// CHECK-NEXT:      memref.dealloc %[[TILE]]
// CHECK-NEXT:      return
// CHECK:         llvm.mlir.global external constant @k_entry_grid(dense<[13, 3, 1, 1, 1, 0, 0, 4, 1, 0, 3, 1, 0]> : tensor<13xi64>) {addr_space = 0 : i32, alignment = 8 : i64}
func.func @prog(%x: memref<?x8xf32> {attnrt.name = "x", attnrt.shape = ["N", 8]},
                %y: memref<?x8xf32> {attnrt.name = "y", attnrt.shape = ["N", 8]}) attributes {attnrt.num_inputs = 1 : i64} {
  attnrt.launch @attnc_kernels::@k(%x, %y) : memref<?x8xf32>, memref<?x8xf32>
  attnrt.launch @attnc_kernels::@k(%y, %x) : memref<?x8xf32>, memref<?x8xf32>
  return
}
module @attnc_kernels {
  func.func @k(%a: memref<?x8xf32>, %b: memref<?x8xf32>) attributes {attnrt.kernel} {
    %c0 = arith.constant 0 : index
    %n = memref.dim %a, %c0 : memref<?x8xf32>
    scf.forall (%i, %j, %l) in (%n, 4, 3) {
      %t = memref.alloc() : memref<16xf32>
      %d = memref.alloc(%i) : memref<?xf32>
      %v = memref.load %a[%i, %j] : memref<?x8xf32>
      memref.store %v, %t[%l] : memref<16xf32>
      memref.store %v, %b[%i, %j] : memref<?x8xf32>
      memref.dealloc %t : memref<16xf32>
      memref.dealloc %d : memref<?xf32>
    }
    return
  }
}

// -----

// A one-dimensional grid (a cast) gives launches one extent, and the loop
// ids are the linear ids. Functions of the kernel module that are not
// kernels (no attnrt.kernel) are left alone; so is a module without a
// kernel module.

// CHECK-LABEL: func.func @prog(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<?xf32>
// CHECK:         %[[BLOCKS:.*]] = arith.ceildivui %{{.*}}, %{{.*}} : index
// CHECK:         attnrt.launch @attnc_kernels::@cast grid(%[[BLOCKS]]) (%[[X]], %{{.*}})
// CHECK-LABEL: module @attnc_kernels {
// CHECK:         func.func @cast(%{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>, %[[BEGIN:[a-z0-9]+]]: index, %[[END:[a-z0-9]+]]: index)
// CHECK:           scf.for %[[ID:.*]] = %[[BEGIN]] to %[[END]] step %{{.*}} {
// CHECK-NEXT:        arith.muli %[[ID]], %{{.*}} : index
// CHECK:         func.func @helper(%{{.*}}: index) {
// CHECK-NEXT:      scf.forall
// CHECK:         llvm.mlir.global external constant @cast_entry_grid(dense<[7, 1, 1, 16, 1, 0, 0]> : tensor<7xi64>)
func.func @prog(%x: memref<?xf32> {attnrt.name = "x", attnrt.shape = ["N"]},
                %y: memref<?xf32> {attnrt.name = "y", attnrt.shape = ["N"]}) attributes {attnrt.num_inputs = 1 : i64} {
  attnrt.launch @attnc_kernels::@cast(%x, %y) : memref<?xf32>, memref<?xf32>
  return
}
module @attnc_kernels {
  func.func @cast(%in: memref<?xf32>, %out: memref<?xf32>) attributes {attnrt.kernel} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %n = memref.dim %in, %c0 : memref<?xf32>
    %blocks = arith.ceildivui %n, %c16 : index
    scf.forall (%b) in (%blocks) {
      %first = arith.muli %b, %c16 : index
      %v = memref.load %in[%first] : memref<?xf32>
      memref.store %v, %out[%first] : memref<?xf32>
    }
    return
  }
  func.func @helper(%n: index) {
    scf.forall (%i) in (%n) {
    }
    return
  }
}

// -----

// After convert-attn-to-host: the attention block's working tiles are
// allocated once per call, before the block loop, and the program's launch
// gets the grid (ceil(Nq / block_m), Hq, B) from the query it passes.

// CHECK-LABEL: func.func @attention(
// CHECK-SAME:    %[[Q:[a-z0-9]+]]: memref<?x4x?x16xf32>
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[NQ:.*]] = memref.dim %[[Q]], %[[C2]]
// CHECK-DAG:     %[[QBLOCKS:.*]] = arith.ceildivui %[[NQ]], %[[C8]] : index
// CHECK-DAG:     %[[B:.*]] = memref.dim %[[Q]], %[[C0]]
// CHECK:         attnrt.launch @attnc_kernels::@attention_attention0 grid(%[[QBLOCKS]], %[[C4]], %[[B]]) (%[[Q]], %[[Q]], %[[Q]], %{{.*}})
// CHECK-LABEL: module @attnc_kernels {
// CHECK:         func.func @attention_attention0(
// CHECK-SAME:      %{{[a-z0-9]+}}: index, %{{[a-z0-9]+}}: index) attributes {attnrt.kernel, llvm.emit_c_interface} {
// CHECK-COUNT-7:   memref.alloc() : memref<
// CHECK-NOT:       memref.alloc
// CHECK:           scf.for
// CHECK-NOT:         memref.alloc
// CHECK-NOT:         memref.dealloc
// CHECK-NOT:       scf.forall
// CHECK-COUNT-7:   memref.dealloc
// CHECK-NEXT:      return
func.func @attention(%q: memref<?x4x?x16xf32> {attnrt.name = "q", attnrt.shape = ["B", 4, "N", 16]},
                     %out: memref<?x4x?x16xf32> {attnrt.name = "out", attnrt.shape = ["B", 4, "N", 16]}) attributes {attnrt.num_inputs = 1 : i64} {
  attnrt.launch @attnc_kernels::@attention_attention0(%q, %q, %q, %out) : memref<?x4x?x16xf32>, memref<?x4x?x16xf32>, memref<?x4x?x16xf32>, memref<?x4x?x16xf32>
  return
}
module @attnc_kernels {
  func.func @attention_attention0(%q: memref<?x4x?x16xf32>, %k: memref<?x4x?x16xf32>, %v: memref<?x4x?x16xf32>, %out: memref<?x4x?x16xf32>) attributes {attnrt.kernel} {
    %0 = bufferization.to_tensor %q : memref<?x4x?x16xf32> to tensor<?x4x?x16xf32>
    %1 = bufferization.to_tensor %k : memref<?x4x?x16xf32> to tensor<?x4x?x16xf32>
    %2 = bufferization.to_tensor %v : memref<?x4x?x16xf32> to tensor<?x4x?x16xf32>
    %o, %l = attn.attention %0, %1, %2 {causal, tiles = #attn.tiles<block_m = 8, block_n = 8>}
        : tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32> -> tensor<?x4x?x16xf32>, tensor<?x4x?xf32>
    bufferization.materialize_in_destination %o in writable %out : (tensor<?x4x?x16xf32>, memref<?x4x?x16xf32>) -> ()
    return
  }
}
