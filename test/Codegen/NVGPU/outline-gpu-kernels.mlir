// RUN: attn-opt %s -split-input-file --attn-outline-gpu-kernels | FileCheck %s
// RUN: attn-opt %s -split-input-file --attn-outline-gpu-kernels=chip=sm_80 | FileCheck %s --check-prefix=CHIP

// The kernel module becomes a gpu.module of the same name targeting the
// chip, with one gpu.func per kernel function: the body of its gpu.launch
// over the function's buffers, the launch's ids and sizes read from gpu ops,
// constants from outside the launch recreated inside, the block size as
// known_block_size and the dynamic shared memory as
// attngpu.dynamic_shared_memory_bytes. The grid moves to every launch of the
// kernel, computed from that launch's buffers; the constant `<kernel>_grid`
// in global memory records it for the runtime (see host-block-ranges.mlir).

// CHECK-LABEL: module attributes {gpu.container_module} {
// CHECK:         func.func @first(
// CHECK-SAME:      %[[X:[a-z0-9]+]]: memref<?xf32> {{.*}}, %[[Y:[a-z0-9]+]]: memref<?xf32>
// CHECK-DAG:       %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:       %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:       %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG:       %[[N:.*]] = memref.dim %[[X]], %[[C0]] : memref<?xf32>
// CHECK:           %[[BLOCKS:.*]] = arith.ceildivui %[[N]], %[[C32]] : index
// CHECK-NEXT:      attnrt.launch @attnc_kernels::@k grid(%[[BLOCKS]], %[[C1]], %[[C1]]) (%[[X]], %[[Y]]) : memref<?xf32>, memref<?xf32>
// CHECK:         func.func @second(
// CHECK-SAME:      %[[X2:[a-z0-9]+]]: memref<?xf32> {{.*}}, %[[Y2:[a-z0-9]+]]: memref<?xf32>
// CHECK:           %[[N2:.*]] = memref.dim %[[Y2]], %{{.*}} : memref<?xf32>
// CHECK:           %[[BLOCKS2:.*]] = arith.ceildivui %[[N2]], %{{.*}} : index
// CHECK-NEXT:      attnrt.launch @attnc_kernels::@k grid(%[[BLOCKS2]], %{{.*}}, %{{.*}}) (%[[Y2]], %[[X2]])
// CHECK:         gpu.module @attnc_kernels [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx81">] {
// CHECK-NEXT:      gpu.func @k(%[[A:[a-z0-9]+]]: memref<?xf32>, %[[B:[a-z0-9]+]]: memref<?xf32>) kernel
// CHECK-SAME:        attributes {attngpu.dynamic_shared_memory_bytes = 512 : i64, known_block_size = array<i32: 32, 1, 1>} {
// CHECK-DAG:         %[[BX:.*]] = gpu.block_id  x
// CHECK-DAG:         %[[TX:.*]] = gpu.thread_id  x
// CHECK-DAG:         %[[GX:.*]] = gpu.grid_dim  x
// CHECK-DAG:         %[[SX:.*]] = gpu.block_dim  x
// CHECK-DAG:         %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK:             %[[I:.*]] = arith.muli %[[BX]], %[[SX]] : index
// CHECK-NEXT:        %[[J:.*]] = arith.addi %[[I]], %[[TX]] : index
// CHECK-NEXT:        %[[K:.*]] = arith.addi %[[J]], %[[GX]] : index
// CHECK-NEXT:        %[[V:.*]] = memref.load %[[A]][%[[J]]] : memref<?xf32>
// CHECK-NEXT:        %[[W:.*]] = arith.mulf %[[V]], %[[TWO]] : f32
// CHECK-NEXT:        memref.store %[[W]], %[[B]][%[[K]]] : memref<?xf32>
// CHECK-NEXT:        gpu.return
// CHECK-NEXT:      }
// CHECK-NEXT:      llvm.mlir.global external constant @k_grid(dense<[13, 3, 1, 32, 1, 0, 0, 1, 1, 0, 1, 1, 0]> : tensor<13xi64>) {addr_space = 1 : i32, alignment = 8 : i64}
// CHECK-NEXT:    }
// CHECK-NOT:     module @attnc_kernels
// CHIP: gpu.module @attnc_kernels [#nvvm.target<O = 3, chip = "sm_80", features = "+ptx81">]
func.func @first(%x: memref<?xf32> {attnrt.name = "x", attnrt.shape = ["N"]},
                 %y: memref<?xf32> {attnrt.name = "y", attnrt.shape = ["N"]}) attributes {attnrt.num_inputs = 1 : i64} {
  attnrt.launch @attnc_kernels::@k(%x, %y) : memref<?xf32>, memref<?xf32>
  return
}
func.func @second(%x: memref<?xf32> {attnrt.name = "x", attnrt.shape = ["N"]},
                  %y: memref<?xf32> {attnrt.name = "y", attnrt.shape = ["M"]}) attributes {attnrt.num_inputs = 1 : i64} {
  attnrt.launch @attnc_kernels::@k(%y, %x) : memref<?xf32>, memref<?xf32>
  return
}
module @attnc_kernels {
  func.func @k(%a: memref<?xf32>, %b: memref<?xf32>) attributes {attnrt.kernel} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %cst = arith.constant 2.0 : f32
    %shared = arith.constant 512 : i32
    %n = memref.dim %a, %c0 : memref<?xf32>
    %blocks = arith.ceildivui %n, %c32 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %blocks, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
               dynamic_shared_memory_size %shared {
      %i = arith.muli %bx, %sx : index
      %j = arith.addi %i, %tx : index
      %k = arith.addi %j, %gx : index
      %v = memref.load %a[%j] : memref<?xf32>
      %w = arith.mulf %v, %cst : f32
      memref.store %w, %b[%k] : memref<?xf32>
      gpu.terminator
    }
    return
  }
}

// -----

// After convert-attn-to-gpu: a cast kernel's grid, the blocks of 1024
// elements of its input, goes to the program, and the kernel recomputes
// the element count from its buffer.

// CHECK-LABEL: func.func @cast(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<?x8xf32, strided<[?, ?], offset: ?>>
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[C1024:.*]] = arith.constant 1024 : index
// CHECK:         %[[ROWS:.*]] = memref.dim %[[X]], %{{.*}}
// CHECK:         %[[COUNT:.*]] = arith.muli %{{.*}}, %[[ROWS]] : index
// CHECK:         %[[COUNT8:.*]] = arith.muli %[[COUNT]], %{{.*}} : index
// CHECK:         %[[BLOCKS:.*]] = arith.ceildivui %[[COUNT8]], %[[C1024]] : index
// CHECK:         attnrt.launch @attnc_kernels::@cast_cast0 grid(%[[BLOCKS]], %{{.*}}, %{{.*}}) (%[[X]], %{{.*}})
// CHECK:       gpu.module @attnc_kernels
// CHECK:         gpu.func @cast_cast0(%[[IN:[a-z0-9]+]]: memref<?x8xf32, strided<[?, ?], offset: ?>>, %{{[a-z0-9]+}}: memref<?x8xbf16, strided<[?, ?], offset: ?>>) kernel
// CHECK-SAME:      attributes {attngpu.dynamic_shared_memory_bytes = 0 : i64, known_block_size = array<i32: 256, 1, 1>} {
// CHECK:           memref.dim %[[IN]]
// CHECK:           gpu.return
func.func @cast(%x: memref<?x8xf32, strided<[?, ?], offset: ?>> {attnrt.name = "in", attnrt.shape = ["d0_0", 8]},
                %y: memref<?x8xbf16, strided<[?, ?], offset: ?>> {attnrt.name = "out", attnrt.shape = ["d0_0", 8]}) attributes {attnrt.num_inputs = 1 : i64} {
  attnrt.launch @attnc_kernels::@cast_cast0(%x, %y) : memref<?x8xf32, strided<[?, ?], offset: ?>>, memref<?x8xbf16, strided<[?, ?], offset: ?>>
  return
}
module @attnc_kernels {
  func.func @cast_cast0(%in: memref<?x8xf32, strided<[?, ?], offset: ?>>, %out: memref<?x8xbf16, strided<[?, ?], offset: ?>>) attributes {attnrt.kernel} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c256 = arith.constant 256 : index
    %c1024 = arith.constant 1024 : index
    %no_shared = arith.constant 0 : i32
    %rows = memref.dim %in, %c0 : memref<?x8xf32, strided<[?, ?], offset: ?>>
    %count = arith.muli %c1, %rows : index
    %count8 = arith.muli %count, %c8 : index
    %blocks = arith.ceildivui %count8, %c1024 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %blocks, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1)
               dynamic_shared_memory_size %no_shared {
      %inner = memref.dim %in, %c0 : memref<?x8xf32, strided<[?, ?], offset: ?>>
      %first = arith.muli %bx, %c1024 : index
      %v = memref.load %in[%first, %tx] : memref<?x8xf32, strided<[?, ?], offset: ?>>
      %w = arith.truncf %v : f32 to bf16
      memref.store %w, %out[%inner, %tx] : memref<?x8xbf16, strided<[?, ?], offset: ?>>
      gpu.terminator
    }
    return
  }
}

// -----

// Every kernel of the module lands in the one gpu.module, in order, under
// its name.

// CHECK-LABEL: module attributes {gpu.container_module} {
// CHECK-NEXT:    gpu.module @attnc_kernels
// CHECK-NEXT:      gpu.func @one(
// CHECK-SAME:        known_block_size = array<i32: 64, 1, 1>
// CHECK:           gpu.func @two(
// CHECK-SAME:        known_block_size = array<i32: 128, 1, 1>
// CHECK-NOT:       gpu.func
module {
  module @attnc_kernels {
    func.func @one(%a: memref<4xf32>) attributes {attnrt.kernel} {
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      %shared = arith.constant 0 : i32
      gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
                 threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
                 dynamic_shared_memory_size %shared {
        gpu.terminator
      }
      return
    }
    func.func @two(%a: memref<4xf32>) attributes {attnrt.kernel} {
      %c1 = arith.constant 1 : index
      %c128 = arith.constant 128 : index
      %shared = arith.constant 0 : i32
      gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
                 threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1)
                 dynamic_shared_memory_size %shared {
        gpu.terminator
      }
      return
    }
  }
}

// -----

// A module without a kernel module is left as it is.

// CHECK-LABEL: module {
// CHECK-NEXT:    func.func @nothing()
// CHECK-NEXT:      return
// CHECK-NEXT:    }
// CHECK-NEXT:  }
func.func @nothing() {
  return
}

// -----

// A block of 32 x 2 threads keeps both sizes (the package launches blocks
// of three extents).
// CHECK-LABEL: gpu.func @two_rows(
// CHECK-SAME:    known_block_size = array<i32: 32, 2, 1>
// CHECK:         gpu.thread_id  y
func.func @prog(%x: memref<64xf32> {attnrt.name = "x", attnrt.shape = [64]}) attributes {attnrt.num_inputs = 1 : i64} {
  attnrt.launch @attnc_kernels::@two_rows(%x) : memref<64xf32>
  return
}
module @attnc_kernels {
  func.func @two_rows(%a: memref<64xf32>) attributes {attnrt.kernel} {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %cst = arith.constant 0.0 : f32
    %shared = arith.constant 0 : i32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c2, %sz = %c1)
               dynamic_shared_memory_size %shared {
      %row = arith.muli %ty, %c32 : index
      %i = arith.addi %row, %tx : index
      memref.store %cst, %a[%i] : memref<64xf32>
      gpu.terminator
    }
    return
  }
}

// -----

// A launch without a dynamic shared memory size uses none.
// CHECK-LABEL: gpu.func @no_shared(
// CHECK-SAME:    attngpu.dynamic_shared_memory_bytes = 0 : i64
// CHECK-SAME:    known_block_size = array<i32: 1, 1, 1>
func.func @prog(%x: memref<?xf32> {attnrt.name = "x", attnrt.shape = ["N"]}) attributes {attnrt.num_inputs = 1 : i64} {
  attnrt.launch @attnc_kernels::@no_shared(%x) : memref<?xf32>
  return
}
module @attnc_kernels {
  func.func @no_shared(%a: memref<?xf32>) attributes {attnrt.kernel} {
    %c1 = arith.constant 1 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      gpu.terminator
    }
    return
  }
}

// -----

// Tensor maps become parameters after the memrefs, in order (here one
// inside a branch), then one i64 of their valid bits: map i is valid where
// bit i is set. attngpu.tensor_maps says which argument each describes,
// with its box and swizzle; the program's launch still passes only the
// memrefs (the runtime makes the maps).
// CHECK-LABEL: func.func @prog(
// CHECK:         attnrt.launch @attnc_kernels::@maps grid({{.*}}) (%{{.*}}, %{{.*}}) : memref<?x2x?x64xbf16>, memref<?x2x?x64xbf16>
// CHECK-LABEL: gpu.func @maps(
// CHECK-SAME:    %[[A:[a-z0-9]+]]: memref<?x2x?x64xbf16>, %[[B:[a-z0-9]+]]: memref<?x2x?x64xbf16>, %[[MAP0:[a-z0-9]+]]: !llvm.ptr, %[[MAP1:[a-z0-9]+]]: !llvm.ptr, %[[BITS:[a-z0-9]+]]: i64) kernel
// CHECK-SAME:    attngpu.tensor_maps = [{arg = 1 : i64, box = array<i64: 64, 128, 1, 1>, swizzle_bytes = 128 : i64}, {arg = 0 : i64, box = array<i64: 64, 64, 1, 1>, swizzle_bytes = 128 : i64}]
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG:     %[[TWO:.*]] = arith.constant 2 : i64
// CHECK-DAG:     %[[BIT0:.*]] = arith.andi %[[BITS]], %[[ONE]] : i64
// CHECK-DAG:     %[[VALID0:.*]] = arith.cmpi ne, %[[BIT0]], %[[ZERO]] : i64
// CHECK-DAG:     %[[BIT1:.*]] = arith.andi %[[BITS]], %[[TWO]] : i64
// CHECK-DAG:     %[[VALID1:.*]] = arith.cmpi ne, %[[BIT1]], %[[ZERO]] : i64
// CHECK:         llvm.ptrtoint %[[MAP0]] : !llvm.ptr to i64
// CHECK-NEXT:    arith.extui %[[VALID0]] : i1 to i64
// CHECK-NEXT:    scf.if
// CHECK-NEXT:      llvm.ptrtoint %[[MAP1]] : !llvm.ptr to i64
// CHECK-NEXT:      arith.extui %[[VALID1]] : i1 to i64
// CHECK-NOT:     attngpu.tensor_map
func.func @prog(%x: memref<?x2x?x64xbf16> {attnrt.name = "x", attnrt.shape = ["B", 2, "N", 64]},
                %y: memref<?x2x?x64xbf16> {attnrt.name = "y", attnrt.shape = ["B", 2, "N", 64]}) attributes {attnrt.num_inputs = 1 : i64} {
  attnrt.launch @attnc_kernels::@maps(%x, %y) : memref<?x2x?x64xbf16>, memref<?x2x?x64xbf16>
  return
}
module @attnc_kernels {
  func.func @maps(%a: memref<?x2x?x64xbf16>, %b: memref<?x2x?x64xbf16>) attributes {attnrt.kernel} {
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      %m0, %ok0 = attngpu.tensor_map %b {box = array<i64: 64, 128, 1, 1>, swizzle_bytes = 128 : i64} : memref<?x2x?x64xbf16>
      %p0 = llvm.ptrtoint %m0 : !llvm.ptr to i64
      %v0 = arith.extui %ok0 : i1 to i64
      scf.if %true {
        %m1, %ok1 = attngpu.tensor_map %a {box = array<i64: 64, 64, 1, 1>, swizzle_bytes = 128 : i64} : memref<?x2x?x64xbf16>
        %p1 = llvm.ptrtoint %m1 : !llvm.ptr to i64
        %v1 = arith.extui %ok1 : i1 to i64
      }
      gpu.terminator
    }
    return
  }
}
