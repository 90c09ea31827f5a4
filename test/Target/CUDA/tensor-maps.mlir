// REQUIRES: cuda-toolkit
// RUN: attnc %s --target=sm_90a --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: attnc %s --target=sm_90a -o %t.attnpkg
// RUN: attn-run %t.attnpkg --info | FileCheck %s --check-prefix=INFO

// A forward kernel with `tma` and `ping_pong` tiles: after its memrefs it
// takes the tensor maps of q, k, v and the output as 128-byte, 64-byte
// aligned parameters, whose generic addresses the TMA loads and stores
// read, then their valid bits (an 8-byte parameter). The manifest records
// which argument each map describes and its box (the output's: a consumer
// warpgroup's rows of q's stage, as the kernel is causal); the consumers
// take turns at named barriers.

// PTX-LABEL: .visible .entry scheduled_attention0(
// PTX:         .param .u64 scheduled_attention0_param_52,
// PTX-NEXT:    .param .align 64 .b8 scheduled_attention0_param_53[128],
// PTX-NEXT:    .param .align 64 .b8 scheduled_attention0_param_54[128],
// PTX-NEXT:    .param .align 64 .b8 scheduled_attention0_param_55[128],
// PTX-NEXT:    .param .align 64 .b8 scheduled_attention0_param_56[128],
// PTX-NEXT:    .param .u64 scheduled_attention0_param_57
// PTX-NEXT:  )
// PTX-DAG:     cvta.param.u64
// PTX-DAG:     mbarrier.arrive.expect_tx.shared.b64
// PTX-DAG:     cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-DAG:     cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group
// PTX-DAG:     cp.async.bulk.wait_group.read 0;
// PTX-DAG:     bar.sync {{.*}}, 256;
// PTX-DAG:     bar.arrive {{.*}}, 256;

// INFO:      kernel scheduled_attention0 (sm_90a): block 384x1x1, {{.*}} tiles block_m=128 block_n=128 mma=2 ping_pong=1 producer=1 tma=1;
// INFO-NEXT:   tensor map of argument 0: box 64x128x1x1, swizzle 128
// INFO-NEXT:   tensor map of argument 1: box 64x128x1x1, swizzle 128
// INFO-NEXT:   tensor map of argument 2: box 64x128x1x1, swizzle 128
// INFO-NEXT:   tensor map of argument 3: box 64x64x1x1, swizzle 128

!t = tensor<?x4x?x128xbf16>
!lse = tensor<?x4x?xf32>

func.func @scheduled(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v {causal, tiles = #attn.tiles<block_m = 128, block_n = 128, mma = wgmma, producer = true, tma = true, ping_pong = true>}
      : !t, !t, !t -> !t, !lse
  return %o, %l : !t, !lse
}
