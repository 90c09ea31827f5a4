// REQUIRES: cuda-toolkit
// RUN: attnc %s --target=sm_90a --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: attnc %s --target=sm_90a -o %t.attnpkg --explain 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: attn-run %t.attnpkg --list | FileCheck %s --check-prefix=LIST
// RUN: attnc %s --target=sm_90a --tensor-cores=mma-sync -o %t.sync.attnpkg --explain 2>&1 | FileCheck %s --check-prefix=SYNC

// PTX 8.1 for sm_90a, one kernel per op of a function (<function>_<kind><i>),
// taking MLIR's expanded memref arguments. bf16 runs on tensor cores: by default wgmma on 128-byte
// swizzled shared memory (a producer warpgroup loading it by TMA, keeping
// 32 registers and handing the rest to three consumer warpgroups, a proxy
// fence for its element-copy fallback, descriptors, the dynamic shared
// memory aligned to 1024 bytes), or with the mma.sync
// kernel's tiles pinned, ldmatrix and mma.sync m16n8k16; f32 on the scalar
// kernel. exp2 comes from libdevice.

// PTX:      .version 8.1
// PTX:      .target sm_90a
// PTX:      .extern .shared .align 1024 .b8 __dynamic_shmem__0[];
// PTX-LABEL: .visible .entry causal_bf16_attention0(
// PTX-DAG:  setmaxnreg.dec.sync.aligned.u32 32;
// PTX-DAG:  setmaxnreg.inc.sync.aligned.u32 160;
// PTX-DAG:  cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-DAG:  fence.proxy.async.shared::cta;
// PTX-DAG:  mbarrier.init.shared.b64
// PTX-DAG:  mbarrier.arrive.expect_tx.shared.b64
// PTX-DAG:  mbarrier.try_wait.parity.shared.b64
// PTX-DAG:  mbarrier.arrive.shared.b64
// PTX-DAG:  wgmma.fence.sync.aligned;
// PTX-DAG:  wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, desc0, desc1, overwrite, 1, 1, 0, 0;
// PTX-DAG:  wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, desc{{[0-9]+}}, accumulate, 1, 1, 1;
// PTX-DAG:  wgmma.commit_group.sync.aligned;
// PTX-DAG:  wgmma.wait_group.sync.aligned 1;
// PTX-DAG:  wgmma.wait_group.sync.aligned 0;
// PTX-DAG:  ex2.approx.ftz.f32
// PTX-DAG:  shfl.sync.bfly.b32
// PTX-LABEL: .visible .entry causal_bf16_mma_sync_attention0(
// PTX-DAG:  ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-DAG:  mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-DAG:  shfl.sync.bfly.b32
// PTX-DAG:  ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX-DAG:  cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, {{.*}};
// PTX-DAG:  ex2.approx
// PTX-LABEL: .visible .entry causal_f32_attention0(
// PTX-NOT:  mma.sync
// PTX:      bar.sync
// PTX:      ex2.approx
// A function of an attention and a cast: two kernels, the cast's 256
// threads converting bf16 elements to f32 with the scale.
// PTX-LABEL: .visible .entry causal_cast_attention0(
// PTX:      wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTX-LABEL: .visible .entry causal_cast_cast1(
// PTX-NOT:  wgmma
// PTX:      .maxntid 256, 1, 1
// PTX:      ld.global.b16
// PTX-NEXT: cvt.f32.bf16
// PTX:      st.global.b32

// The package records each program's buffers, each kernel's launch and
// configuration, and ptxas's resource report per kernel.

// EXPLAIN-DAG: causal_bf16_attention0 (sm_90a): registers={{[0-9]+}} spill_load_bytes=0 spill_store_bytes=0 stack_bytes={{[0-9]+}}
// EXPLAIN-DAG: causal_cast_cast1 (sm_90a): registers={{[0-9]+}} spill_load_bytes=0 spill_store_bytes=0 stack_bytes={{[0-9]+}}
// EXPLAIN-DAG: causal_bf16: kernel causal_bf16_attention0, entry causal_bf16_attention0, block 512, dynamic shared memory 122968 bytes, tiles block_m=192 block_n=128 mma=wgmma producer=1 tma=1
// EXPLAIN-DAG: causal_bf16_mma_sync: kernel causal_bf16_mma_sync_attention0, entry causal_bf16_mma_sync_attention0, block 256, dynamic shared memory 55296 bytes, tiles block_m=128 block_n=64 mma=mma_sync
// EXPLAIN-DAG: causal_f32: kernel causal_f32_attention0, entry causal_f32_attention0, block 64, dynamic shared memory 83200 bytes, tiles block_m=64 block_n=64 mma=none
// EXPLAIN-DAG: causal_cast: buffer t0 bf16 [B, 4, Nq, 64] slot 0
// EXPLAIN-DAG: causal_cast: kernel causal_cast_attention0, entry causal_cast_attention0, block 512, dynamic shared memory 122968 bytes, tiles block_m=192 block_n=128 mma=wgmma producer=1 tma=1
// EXPLAIN-DAG: causal_cast: kernel causal_cast_cast1, entry causal_cast_cast1, block 256, dynamic shared memory 0 bytes, tiles block_size=2048

// With --tensor-cores=mma-sync every 16-bit function gets the mma.sync tiles.
// SYNC-DAG: causal_bf16: kernel causal_bf16_attention0, entry causal_bf16_attention0, block 256, dynamic shared memory 55296 bytes, tiles block_m=128 block_n=64 mma=mma_sync
// SYNC-DAG: causal_cast: kernel causal_cast_attention0, entry causal_cast_attention0, block 256, dynamic shared memory 55296 bytes, tiles block_m=128 block_n=64 mma=mma_sync

// LIST:      causal_bf16
// LIST-NEXT: causal_bf16_mma_sync
// LIST-NEXT: causal_f32
// LIST-NEXT: causal_cast

func.func @causal_bf16(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x4x?x64xbf16>, %v: tensor<?x4x?x64xbf16>)
    -> (tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {causal}
      : tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>
      -> tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>
  return %o, %l : tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>
}

func.func @causal_bf16_mma_sync(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x4x?x64xbf16>, %v: tensor<?x4x?x64xbf16>)
    -> (tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {causal, tiles = #attn.tiles<block_m = 128, block_n = 64>}
      : tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>
      -> tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>
  return %o, %l : tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>
}

func.func @causal_f32(%q: tensor<?x4x?x64xf32>, %k: tensor<?x4x?x64xf32>, %v: tensor<?x4x?x64xf32>)
    -> (tensor<?x4x?x64xf32>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {causal}
      : tensor<?x4x?x64xf32>, tensor<?x4x?x64xf32>, tensor<?x4x?x64xf32>
      -> tensor<?x4x?x64xf32>, tensor<?x4x?xf32>
  return %o, %l : tensor<?x4x?x64xf32>, tensor<?x4x?xf32>
}

func.func @causal_cast(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x4x?x64xbf16>, %v: tensor<?x4x?x64xbf16>)
    -> tensor<?x4x?x64xf32> {
  %o, %l = attn.attention %q, %k, %v {causal}
      : tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>
      -> tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>
  %c = attn.cast %o {scale = 2.0 : f32} : tensor<?x4x?x64xbf16> to tensor<?x4x?x64xf32>
  return %c : tensor<?x4x?x64xf32>
}
