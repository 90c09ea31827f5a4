// RUN: split-file %s %t
// RUN: attn-opt %t/target.mlir -verify-diagnostics --pass-pipeline='builtin.module(func.func(attn-kernel-config{target=sm_100}))'
// RUN: attn-opt %t/tensor-cores.mlir -verify-diagnostics --pass-pipeline='builtin.module(func.func(attn-kernel-config{target=sm_90a tensor-cores=wmma}))'
// RUN: attn-opt %t/schedule.mlir -verify-diagnostics --pass-pipeline='builtin.module(func.func(attn-kernel-config{target=sm_90a kernel-schedule=pingpong}))'
// RUN: attn-opt %t/host.mlir -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(attn-kernel-config{target=host}))'
// RUN: attn-opt %t/gpu.mlir -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(attn-kernel-config{target=sm_90a}))'

// "wgmma tiles need a target with wgmma" cannot be reached: sm_90a, the
// only GPU target, has wgmma.

//--- target.mlir
// Targets are host and sm_90a; the error is on each function the pass
// runs on.
// expected-error @below {{unknown target 'sm_100'; expected host or sm_90a}}
func.func @f() {
  return
}

//--- schedule.mlir
// expected-error @below {{unknown kernel-schedule option 'pingpong'; expected ping-pong}}
func.func @f() {
  return
}

//--- tensor-cores.mlir
// expected-error @below {{unknown tensor-core kernel 'wmma'; expected auto or mma-sync}}
func.func @f() {
  return
}

//--- host.mlir
// Host kernels have no tensor cores: pinned mma.sync or wgmma tiles are an
// error on the host target.
func.func @mma_sync(%q: tensor<1x4x?x64xbf16>) -> tensor<1x4x?x64xbf16> {
  // expected-error @below {{'attn.attention' op tensor-core tiles (mma = mma_sync) need a GPU target, not host}}
  %o, %l = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 64, block_n = 64, mma = mma_sync>}
      : tensor<1x4x?x64xbf16>, tensor<1x4x?x64xbf16>, tensor<1x4x?x64xbf16>
      -> tensor<1x4x?x64xbf16>, tensor<1x4x?xf32>
  return %o : tensor<1x4x?x64xbf16>
}

// -----

func.func @wgmma(%q: tensor<1x4x?x64xbf16>) -> tensor<1x4x?x64xbf16> {
  // expected-error @below {{'attn.attention' op tensor-core tiles (mma = wgmma) need a GPU target, not host}}
  %o, %l = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 128, block_n = 128, mma = wgmma>}
      : tensor<1x4x?x64xbf16>, tensor<1x4x?x64xbf16>, tensor<1x4x?x64xbf16>
      -> tensor<1x4x?x64xbf16>, tensor<1x4x?xf32>
  return %o : tensor<1x4x?x64xbf16>
}

// -----

// wgmma gradient kernels need a GPU.
func.func @grad_wgmma_host(%q: tensor<1x2x8x64xbf16>, %l: tensor<1x2x8xf32>) {
  // expected-error @below {{'attn.attention_grad_kv' op wgmma gradient kernels need a target with wgmma, f16 or bf16 inputs with head dims that are multiples of 16 up to 128 (of 64 where the key/value kernel adds dq), and tiles of 64 (key/value kernel) or 64 or 128 (query kernel) queries by 64 or 128 keys; got 64x128}}
  %dk, %dv = attn.attention_grad_kv %q, %q, %q, %l, %l, %q {tiles = #attn.tiles<block_m = 64, block_n = 128, mma = wgmma>}
      : tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8x64xbf16>
      -> tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>
  return
}

// -----

// mma.sync gradient kernels need a GPU (and square tiles of 16-bit inputs).
func.func @grad_mma_sync_host(%q: tensor<1x2x8x64xbf16>, %l: tensor<1x2x8xf32>) {
  // expected-error @below {{'attn.attention_grad_q' op mma_sync gradient kernels need a GPU target, f16 or bf16 inputs with head dims that are multiples of 16, and square tiles; got 64x64}}
  %dq = attn.attention_grad_q %q, %q, %q, %l, %l, %q {tiles = #attn.tiles<block_m = 64, block_n = 64, mma = mma_sync>}
      : tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8x64xbf16>
      -> tensor<1x2x8x64xbf16>
  return
}

//--- gpu.mlir
// The query kernel's block is one or two warpgroups of 64 query rows.
func.func @grad_q_wgmma_rows(%q: tensor<1x2x8x64xbf16>, %l: tensor<1x2x8xf32>) {
  // expected-error @below {{'attn.attention_grad_q' op wgmma gradient kernels need a target with wgmma, f16 or bf16 inputs with head dims that are multiples of 16 up to 128 (of 64 where the key/value kernel adds dq), and tiles of 64 (key/value kernel) or 64 or 128 (query kernel) queries by 64 or 128 keys; got 192x64}}
  %dq = attn.attention_grad_q %q, %q, %q, %l, %l, %q {tiles = #attn.tiles<block_m = 192, block_n = 64, mma = wgmma>}
      : tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8x64xbf16>
      -> tensor<1x2x8x64xbf16>
  return
}

// -----

// Its warpgroups keep dK and dV of head dims up to 128 in registers.
func.func @grad_kv_wgmma_wide(%q: tensor<1x2x8x256xbf16>, %l: tensor<1x2x8xf32>) {
  // expected-error @below {{'attn.attention_grad_kv' op wgmma gradient kernels need a target with wgmma, f16 or bf16 inputs with head dims that are multiples of 16 up to 128 (of 64 where the key/value kernel adds dq), and tiles of 64 (key/value kernel) or 64 or 128 (query kernel) queries by 64 or 128 keys; got 64x128}}
  %dk, %dv = attn.attention_grad_kv %q, %q, %q, %l, %l, %q {tiles = #attn.tiles<block_m = 64, block_n = 128, mma = wgmma>}
      : tensor<1x2x8x256xbf16>, tensor<1x2x8x256xbf16>, tensor<1x2x8x256xbf16>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8x256xbf16>
      -> tensor<1x2x8x256xbf16>, tensor<1x2x8x256xbf16>
  return
}

// -----

// Its warpgroups split dq's columns at a swizzle panel: with a dq
// accumulator, head dim 96 is rejected (without one it is taken).
func.func @grad_kv_wgmma_dq_split(%q: tensor<1x2x8x96xbf16>, %l: tensor<1x2x8xf32>, %acc: tensor<1x2x8x96xf32>) {
  // expected-error @below {{'attn.attention_grad_kv' op wgmma gradient kernels need a target with wgmma, f16 or bf16 inputs with head dims that are multiples of 16 up to 128 (of 64 where the key/value kernel adds dq), and tiles of 64 (key/value kernel) or 64 or 128 (query kernel) queries by 64 or 128 keys; got 64x128}}
  %dk, %dv, %sum = attn.attention_grad_kv %q, %q, %q, %l, %l, %q, %acc {row_swizzle = 48 : i64, tiles = #attn.tiles<block_m = 64, block_n = 128, mma = wgmma>}
      : tensor<1x2x8x96xbf16>, tensor<1x2x8x96xbf16>, tensor<1x2x8x96xbf16>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8x96xbf16>, tensor<1x2x8x96xf32>
      -> tensor<1x2x8x96xbf16>, tensor<1x2x8x96xbf16>, tensor<1x2x8x96xf32>
  return
}

// -----

// 64 queries per tile: the query rows of dq's M.
func.func @grad_kv_wgmma_rows(%q: tensor<1x2x8x64xbf16>, %l: tensor<1x2x8xf32>) {
  // expected-error @below {{'attn.attention_grad_kv' op wgmma gradient kernels need a target with wgmma, f16 or bf16 inputs with head dims that are multiples of 16 up to 128 (of 64 where the key/value kernel adds dq), and tiles of 64 (key/value kernel) or 64 or 128 (query kernel) queries by 64 or 128 keys; got 128x128}}
  %dk, %dv = attn.attention_grad_kv %q, %q, %q, %l, %l, %q {tiles = #attn.tiles<block_m = 128, block_n = 128, mma = wgmma>}
      : tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8x64xbf16>
      -> tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>
  return
}
