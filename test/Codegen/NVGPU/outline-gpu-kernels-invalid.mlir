// RUN: attn-opt %s -split-input-file -verify-diagnostics --attn-outline-gpu-kernels

// A GPU kernel function holds exactly one gpu.launch: not none ...
module {
  module @attnc_kernels {
    // expected-error @below {{GPU kernel no_launch must hold exactly one gpu.launch}}
    func.func @no_launch(%a: memref<4xf32>) attributes {attnrt.kernel} {
      return
    }
  }
}

// -----

// ... nor two.
module {
  module @attnc_kernels {
    // expected-error @below {{GPU kernel two_launches must hold exactly one gpu.launch}}
    func.func @two_launches(%a: memref<4xf32>) attributes {attnrt.kernel} {
      %c1 = arith.constant 1 : index
      %shared = arith.constant 0 : i32
      gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
                 threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
                 dynamic_shared_memory_size %shared {
        gpu.terminator
      }
      gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
                 threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
                 dynamic_shared_memory_size %shared {
        gpu.terminator
      }
      return
    }
  }
}

// -----

// The block size becomes the kernel's known_block_size: it must be a
// constant ...
module {
  module @attnc_kernels {
    func.func @dynamic_block(%a: memref<?xf32>) attributes {attnrt.kernel} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %shared = arith.constant 0 : i32
      %n = memref.dim %a, %c0 : memref<?xf32>
      // expected-error @below {{the block size of a kernel launch must be a constant}}
      gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
                 threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1)
                 dynamic_shared_memory_size %shared {
        gpu.terminator
      }
      return
    }
  }
}

// -----

// ... along every dim ...
module {
  module @attnc_kernels {
    func.func @dynamic_block_z(%a: memref<?xf32>) attributes {attnrt.kernel} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %shared = arith.constant 0 : i32
      %n = memref.dim %a, %c0 : memref<?xf32>
      // expected-error @below {{the block size of a kernel launch must be a constant}}
      gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
                 threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %n)
                 dynamic_shared_memory_size %shared {
        gpu.terminator
      }
      return
    }
  }
}

// -----

// ... and so must the dynamic shared memory, which the package records.
module {
  module @attnc_kernels {
    func.func @dynamic_shared(%a: memref<?xf32>, %bytes: i32) attributes {attnrt.kernel} {
      %c1 = arith.constant 1 : index
      // expected-error @below {{the dynamic shared memory of a kernel launch must be a constant}}
      gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
                 threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
                 dynamic_shared_memory_size %bytes {
        gpu.terminator
      }
      return
    }
  }
}

// -----

// Ops with effects outside the launch would not be part of the kernel.
func.func @prog(%x: memref<64xf32> {attnrt.name = "x", attnrt.shape = [64]}) attributes {attnrt.num_inputs = 1 : i64} {
  attnrt.launch @attnc_kernels::@store_outside(%x) : memref<64xf32>
  return
}
module @attnc_kernels {
  func.func @store_outside(%a: memref<64xf32>) attributes {attnrt.kernel} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %one = arith.constant 1.0 : f32
    %zero = arith.constant 0.0 : f32
    %shared = arith.constant 0 : i32
    // expected-error @below {{GPU kernel store_outside may compute only its grid and constants outside its gpu.launch}}
    memref.store %one, %a[%c0] : memref<64xf32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
               dynamic_shared_memory_size %shared {
      memref.store %zero, %a[%tx] : memref<64xf32>
      gpu.terminator
    }
    return
  }
}

// -----

// The launch body becomes a kernel of its own: values from outside it
// other than the kernel's arguments and constants are out of reach.
module {
  module @attnc_kernels {
    func.func @outside_value(%a: memref<?xf32>) attributes {attnrt.kernel} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %shared = arith.constant 0 : i32
      %n = memref.dim %a, %c0 : memref<?xf32>
      gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
                 threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
                 dynamic_shared_memory_size %shared {
        // expected-error @below {{a GPU kernel body may use only the kernel's arguments and constants from outside the launch}}
        %v = memref.load %a[%n] : memref<?xf32>
        gpu.terminator
      }
      return
    }
  }
}

// -----

// The grid moves to the program's launches: it must be computed from the
// kernel's arguments by ops without effects.
module {
  module @attnc_kernels {
    func.func @loaded_grid(%a: memref<?xf32>, %size: memref<index>) attributes {attnrt.kernel} {
      %c1 = arith.constant 1 : index
      %shared = arith.constant 0 : i32
      // expected-error @below {{the grid of kernel loaded_grid must be computed by ops without effects}}
      %n = memref.load %size[] : memref<index>
      gpu.launch blocks(%bx, %by, %bz) in (%gx = %n, %gy = %c1, %gz = %c1)
                 threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
                 dynamic_shared_memory_size %shared {
        gpu.terminator
      }
      return
    }
  }
}

// -----

// A tensor map describes a kernel argument, which the runtime encodes: not
// a view made inside the kernel.
module {
  module @attnc_kernels {
    func.func @view_map(%a: memref<?x2x?x64xbf16>) attributes {attnrt.kernel} {
      %c1 = arith.constant 1 : index
      gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
                 threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
        %view = memref.cast %a : memref<?x2x?x64xbf16> to memref<?x?x?x64xbf16>
        // expected-error @below {{a tensor map must describe an argument of the GPU kernel}}
        %m, %ok = attngpu.tensor_map %view {box = array<i64: 64, 64, 1, 1>, swizzle_bytes = 128 : i64} : memref<?x?x?x64xbf16>
        %p = llvm.ptrtoint %m : !llvm.ptr to i64
        gpu.terminator
      }
      return
    }
  }
}
