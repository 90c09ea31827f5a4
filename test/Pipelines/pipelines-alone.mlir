// Each pipeline of the guide's attn-opt row runs alone, the only pass flag
// of its attn-opt, on the form it consumes: the frontend and the programs
// pipeline and the whole host pipeline on attn functions; the kernel
// pipelines on the programs' output; the LLVM and NVVM lowerings on the
// kernels' output.

// RUN: attn-opt %s --attnc-frontend | FileCheck %s --check-prefix=FRONTEND
// RUN: attn-opt %s --attnc-programs | FileCheck %s --check-prefix=PROGRAMS
// RUN: attn-opt %s --attnc-programs > %t.programs.mlir
// RUN: attn-opt %t.programs.mlir --attnc-host-kernels | FileCheck %s --check-prefix=HOST-KERNELS --implicit-check-not=attn.attention
// RUN: attn-opt %t.programs.mlir --attnc-host-kernels > %t.host-kernels.mlir
// RUN: attn-opt %t.host-kernels.mlir --attnc-host-to-llvm | FileCheck %s --check-prefix=HOST-LLVM --implicit-check-not=scf.
// RUN: attn-opt %s --attnc-programs='target=sm_90a' > %t.gpu-programs.mlir
// RUN: attn-opt %t.gpu-programs.mlir --attnc-gpu-kernels='target=sm_90a' | FileCheck %s --check-prefix=GPU-KERNELS --implicit-check-not=attn.attention --implicit-check-not=attngpu.shared_tile
// RUN: attn-opt %t.gpu-programs.mlir --attnc-gpu-kernels='target=sm_90a' > %t.gpu-kernels.mlir
// RUN: attn-opt %t.gpu-kernels.mlir --attnc-gpu-to-nvvm | FileCheck %s --check-prefix=GPU-NVVM --implicit-check-not=gpu.func
// RUN: attn-opt %s --attnc-host | FileCheck %s --check-prefix=HOST --implicit-check-not=attn.attention --implicit-check-not=scf.

// attnc-frontend: the backward function the attribute asks for is derived.
// FRONTEND-LABEL: func.func @f(
// FRONTEND:         attn.attention %{{.*}} {causal}
// FRONTEND-LABEL: func.func @f_bwd(
// FRONTEND-SAME:    attributes {attn.gradient_of = @f}
// FRONTEND:         attn.attention_grad

// attnc-programs: the function is a program on buffers that launches a
// kernel, which holds the tiled attention (no backward is derived here).
// PROGRAMS-LABEL: func.func @f(
// PROGRAMS-SAME:    memref<?x4x?x32xf32
// PROGRAMS:         attnrt.launch @attnc_kernels::@f_attention0 (
// PROGRAMS-LABEL: module @attnc_kernels {
// PROGRAMS:         func.func @f_attention0(
// PROGRAMS:           attn.attention {{.*}}tiles = #attn.tiles<
// PROGRAMS-NOT:   @f_bwd

// attnc-host-kernels: the launch has its grid; the kernel is loops over
// the block range [begin, end) the runtime hands it, no attn op is left.
// HOST-KERNELS-LABEL: func.func @f(
// HOST-KERNELS:         attnrt.launch @attnc_kernels::@f_attention0 grid(
// HOST-KERNELS-LABEL: module @attnc_kernels {
// HOST-KERNELS:         func.func @f_attention0({{.*}}, %[[BEGIN:[a-z0-9]+]]: index, %[[END:[a-z0-9]+]]: index)
// HOST-KERNELS:           scf.for %{{.*}} = %[[BEGIN]] to %[[END]] step

// attnc-host-to-llvm: the kernel is an LLVM function with the C interface
// and the packed entry point that calls it; no loop is left.
// HOST-LLVM-LABEL: module @attnc_kernels {
// HOST-LLVM:         llvm.func internal @f_attention0(
// HOST-LLVM:         llvm.func internal @_mlir_ciface_f_attention0(
// HOST-LLVM-LABEL:   llvm.func @f_attention0_entry(%{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64)
// HOST-LLVM:           llvm.call @_mlir_ciface_f_attention0(

// attnc-gpu-kernels: the kernel module is a gpu.module for sm_90a of one
// gpu.func kernel with its block size and dynamic shared memory, its
// shared tiles laid out.
// GPU-KERNELS-LABEL: func.func @f(
// GPU-KERNELS:         attnrt.launch @attnc_kernels::@f_attention0 grid(
// GPU-KERNELS-LABEL: gpu.module @attnc_kernels [#nvvm.target<{{.*}}chip = "sm_90a"
// GPU-KERNELS:         gpu.func @f_attention0({{.*}}) kernel attributes {attngpu.dynamic_shared_memory_bytes = {{[0-9]+}} : i64, known_block_size = array<i32: {{[0-9]+}}, 1, 1>}
// GPU-KERNELS:           gpu.thread_id x

// attnc-gpu-to-nvvm: the kernel is an LLVM function marked as an NVVM
// kernel, reading NVVM special registers; no gpu.func is left.
// GPU-NVVM-LABEL: gpu.module @attnc_kernels
// GPU-NVVM:         llvm.func @f_attention0({{.*}}) attributes {{{.*}}gpu.kernel{{.*}}nvvm.kernel
// GPU-NVVM:           nvvm.read.ptx.sreg.tid.x

// attnc-host: all of it at once, backward included: both functions are
// programs, and every kernel has its LLVM entry point; no attn op or loop
// is left.
// HOST-LABEL: func.func @f(
// HOST:         attnrt.launch @attnc_kernels::@f_attention0 grid(
// HOST-LABEL: func.func @f_bwd(
// HOST:         attnrt.launch @attnc_kernels::@f_bwd_attention_grad
// HOST-LABEL: module @attnc_kernels {
// HOST:         llvm.func @f_attention0_entry(
// HOST:         llvm.func @f_bwd_attention_grad{{.*}}_entry(

func.func @f(%q: tensor<?x4x?x32xf32>, %k: tensor<?x2x?x32xf32>, %v: tensor<?x2x?x32xf32>)
    -> (tensor<?x4x?x32xf32>, tensor<?x4x?xf32>) attributes {attn.backward} {
  %out, %lse = attn.attention %q, %k, %v {causal}
      : tensor<?x4x?x32xf32>, tensor<?x2x?x32xf32>, tensor<?x2x?x32xf32>
      -> tensor<?x4x?x32xf32>, tensor<?x4x?xf32>
  return %out, %lse : tensor<?x4x?x32xf32>, tensor<?x4x?xf32>
}
