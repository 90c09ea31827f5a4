// RUN: attn-opt %s -split-input-file -verify-diagnostics --attn-host-block-ranges

// A host kernel is one scf.forall over its grid: none is an error...
module {
  module @attnc_kernels {
    // expected-error @below {{host kernel no_grid must hold exactly one scf.forall over its grid}}
    func.func @no_grid(%a: memref<4xf32>) attributes {attnrt.kernel} {
      return
    }
  }
}

// -----

// ... and so are two.
module {
  module @attnc_kernels {
    // expected-error @below {{host kernel two_grids must hold exactly one scf.forall over its grid}}
    func.func @two_grids(%a: memref<4xf32>) attributes {attnrt.kernel} {
      scf.forall (%i) in (4) {
      }
      scf.forall (%i) in (4) {
      }
      return
    }
  }
}

// -----

// The grid has at most three dims (x, y, z) ...
module {
  module @attnc_kernels {
    func.func @four_dims(%a: memref<4xf32>) attributes {attnrt.kernel} {
      // expected-error @below {{the grid of host kernel four_dims must be a normalized forall of up to 3 dims without outputs}}
      scf.forall (%i, %j, %k, %l) in (2, 2, 2, 2) {
      }
      return
    }
  }
}

// -----

// ... counts blocks from 0 by 1 ...
module {
  module @attnc_kernels {
    func.func @not_normalized(%a: memref<4xf32>) attributes {attnrt.kernel} {
      // expected-error @below {{the grid of host kernel not_normalized must be a normalized forall of up to 3 dims without outputs}}
      scf.forall (%i) = (1) to (9) step (2) {
      }
      return
    }
  }
}

// -----

// ... and writes buffers, not tensors.
module {
  module @attnc_kernels {
    func.func @outputs(%t: tensor<4xf32>) -> tensor<4xf32> attributes {attnrt.kernel} {
      // expected-error @below {{the grid of host kernel outputs must be a normalized forall of up to 3 dims without outputs}}
      %r = scf.forall (%i) in (4) shared_outs(%o = %t) -> tensor<4xf32> {
      }
      return %r : tensor<4xf32>
    }
  }
}

// -----

// The grid moves to the program's launches, so it must be computed from
// the kernel's arguments by ops without effects: not by a load (launch
// grids are computed before the kernel runs) ...
module {
  module @attnc_kernels {
    func.func @loaded(%a: memref<?xf32>, %n: memref<index>) attributes {attnrt.kernel} {
      // expected-error @below {{the grid of kernel loaded must be computed by ops without effects}}
      %m = memref.load %n[] : memref<index>
      scf.forall (%i) in (%m) {
        %v = memref.load %a[%i] : memref<?xf32>
      }
      return
    }
  }
}

// -----

// ... nor by ops with regions ...
module {
  module @attnc_kernels {
    func.func @branch(%a: memref<?xf32>, %n: index, %f: i1) attributes {attnrt.kernel} {
      // expected-error @below {{the grid of kernel branch must be computed by ops without effects}}
      %m = scf.if %f -> index {
        scf.yield %n : index
      } else {
        scf.yield %n : index
      }
      scf.forall (%i) in (%m) {
        %v = memref.load %a[%i] : memref<?xf32>
      }
      return
    }
  }
}

// -----

// ... nor from values that are not the kernel's arguments (the argument
// of a later block).
module {
  module @attnc_kernels {
    func.func @block_argument(%a: memref<?xf32>, %n: i64) attributes {attnrt.kernel} {
      llvm.br ^bb1(%n : i64)
    // expected-error @below {{the grid of kernel block_argument depends on a value other than its arguments}}
    ^bb1(%m64: i64):
      %m = arith.index_cast %m64 : i64 to index
      scf.forall (%i) in (%m) {
        %v = memref.load %a[%i] : memref<?xf32>
      }
      return
    }
  }
}

// -----

// The grid moves to each launch, computed from the buffers it passes: a
// grid read from an argument the launch does not pass is reported there.
func.func @prog(%x: memref<?xf32> {attnrt.name = "x", attnrt.shape = ["N"]}) attributes {attnrt.num_inputs = 1 : i64} {
  // expected-error @below {{the grid of kernel k reads its argument #1, which this launch does not pass}}
  attnrt.launch @attnc_kernels::@k(%x) : memref<?xf32>
  return
}
module @attnc_kernels {
  func.func @k(%a: memref<?xf32>, %b: memref<?xf32>) attributes {attnrt.kernel} {
    %c0 = arith.constant 0 : index
    %n = memref.dim %b, %c0 : memref<?xf32>
    scf.forall (%i) in (%n) {
      %v = memref.load %a[%i] : memref<?xf32>
    }
    return
  }
}

// -----

// The code records its grid for the runtime to check the manifest's
// against, as a product of constants and dims of its arguments divided by
// a constant: not a scalar argument ...
module {
  module @attnc_kernels {
    // expected-error @below {{the grid of kernel scalar must be a product of constants and dims of its arguments, divided by a constant}}
    func.func @scalar(%a: memref<?xf32>, %n: index) attributes {attnrt.kernel} {
      scf.forall (%i) in (%n) {
        %v = memref.load %a[%i] : memref<?xf32>
      }
      return
    }
  }
}

// -----

// ... nor a sum ...
module {
  module @attnc_kernels {
    func.func @sum(%a: memref<?xf32>) attributes {attnrt.kernel} {
      %c0 = arith.constant 0 : index
      %n = memref.dim %a, %c0 : memref<?xf32>
      // expected-error @below {{the grid of kernel sum must be a product of constants and dims of its arguments, divided by a constant}}
      %m = arith.addi %n, %n : index
      scf.forall (%i) in (%m) {
      }
      return
    }
  }
}

// -----

// ... nor the dims of a view of an argument.
module {
  module @attnc_kernels {
    func.func @view(%a: memref<?x?xf32>) attributes {attnrt.kernel} {
      %c0 = arith.constant 0 : index
      %row = memref.collapse_shape %a [[0, 1]] : memref<?x?xf32> into memref<?xf32>
      // expected-error @below {{the grid of kernel view reads the dims of a value other than its arguments}}
      %n = memref.dim %row, %c0 : memref<?xf32>
      scf.forall (%i) in (%n) {
      }
      return
    }
  }
}
