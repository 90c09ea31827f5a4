// The forward kernel's schedule options, pinned (attn-kernel-config gives
// `tma` to every kernel with a producer, `ping_pong` to causal ones up to
// head dim 128): TMA loads by the producer (`tma`), the consumers
// taking turns on the tensor cores (`ping_pong`), and both; with head dim
// 80 (boxes reaching past the head dim), grouped-query heads and a value
// head dim other than the query's, three consumer warpgroups beside the
// producer (also with a score region, which by default takes two), and
// three taking turns. scripts/gpu-integration.sh runs each GPU-RUN line with
// `attn-run schedules.attnpkg ... --device cuda:0`, and
// test/GPU/check_tensor_maps.py runs them on inputs of other layouts.

!t128 = tensor<?x4x?x128xbf16>
!t80 = tensor<?x4x?x80xbf16>
!t64 = tensor<?x4x?x64xbf16>
!lse = tensor<?x4x?xf32>

// GPU-RUN: --fn tma --shape B=2 --shape Nq=1000 --shape Nk=1000 --check
// GPU-RUN: --fn tma --shape B=1 --shape Nq=1 --shape Nk=77 --check
// GPU-RUN: --fn tma --shape B=2 --shape Nq=300 --shape Nk=1500 --check
func.func @tma(%q: !t128, %k: !t128, %v: !t128) -> (!t128, !lse) {
  %o, %l = attn.attention %q, %k, %v {tiles = #attn.tiles<block_m = 128, block_n = 128, mma = wgmma, producer = true, tma = true>}
      : !t128, !t128, !t128 -> !t128, !lse
  return %o, %l : !t128, !lse
}

// GPU-RUN: --fn ping_pong --shape B=2 --shape Nq=1000 --shape Nk=1000 --check
// GPU-RUN: --fn ping_pong --shape B=1 --shape Nq=77 --shape Nk=1 --check
func.func @ping_pong(%q: !t128, %k: !t128, %v: !t128) -> (!t128, !lse) {
  %o, %l = attn.attention %q, %k, %v {causal, tiles = #attn.tiles<block_m = 128, block_n = 128, mma = wgmma, producer = true, ping_pong = true>}
      : !t128, !t128, !t128 -> !t128, !lse
  return %o, %l : !t128, !lse
}

// GPU-RUN: --fn tma_ping_pong --shape B=2 --shape Nq=1000 --shape Nk=1000 --check
// GPU-RUN: --fn tma_ping_pong --shape B=1 --shape Nq=1500 --shape Nk=300 --check
func.func @tma_ping_pong(%q: !t128, %k: !t128, %v: !t128) -> (!t128, !lse) {
  %o, %l = attn.attention %q, %k, %v {causal, tiles = #attn.tiles<block_m = 128, block_n = 128, mma = wgmma, producer = true, tma = true, ping_pong = true>}
      : !t128, !t128, !t128 -> !t128, !lse
  return %o, %l : !t128, !lse
}

// GPU-RUN: --fn tma_hd80 --shape B=2 --shape Nq=1000 --shape Nk=1000 --check
func.func @tma_hd80(%q: !t80, %k: !t80, %v: !t80) -> (!t80, !lse) {
  %o, %l = attn.attention %q, %k, %v {causal, tiles = #attn.tiles<block_m = 128, block_n = 128, mma = wgmma, producer = true, tma = true, ping_pong = true>}
      : !t80, !t80, !t80 -> !t80, !lse
  return %o, %l : !t80, !lse
}

// GPU-RUN: --fn tma_gqa --shape B=2 --shape Nq=1000 --shape Nk=1000 --check
func.func @tma_gqa(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x2x?x128xbf16>,
                   %v: tensor<?x2x?x64xbf16>) -> (tensor<?x8x?x64xbf16>, tensor<?x8x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {tiles = #attn.tiles<block_m = 128, block_n = 128, mma = wgmma, producer = true, tma = true, ping_pong = true>}
      : tensor<?x8x?x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x64xbf16>
      -> tensor<?x8x?x64xbf16>, tensor<?x8x?xf32>
  return %o, %l : tensor<?x8x?x64xbf16>, tensor<?x8x?xf32>
}

// Three consumer warpgroups beside a TMA producer (head dim 64's default).
// GPU-RUN: --fn tma_hd64 --shape B=2 --shape Nq=1000 --shape Nk=1000 --check
// GPU-RUN: --fn tma_hd64 --shape B=1 --shape Nq=150 --shape Nk=1 --check
func.func @tma_hd64(%q: !t64, %k: !t64, %v: !t64) -> (!t64, !lse) {
  %o, %l = attn.attention %q, %k, %v {causal, tiles = #attn.tiles<block_m = 192, block_n = 128, mma = wgmma, producer = true, tma = true>}
      : !t64, !t64, !t64 -> !t64, !lse
  return %o, %l : !t64, !lse
}

// Three consumer warpgroups with ALiBi's score region (score - slope(h) *
// (q - k)) beside the producer: each thread keeps 160 registers.
// GPU-RUN: --fn alibi_three --shape B=2 --shape Nq=1000 --shape Nk=1000 --check
// GPU-RUN: --fn alibi_three --shape B=1 --shape Nq=1100 --shape Nk=1300 --check
func.func @alibi_three(%q: !t64, %k: !t64, %v: !t64) -> (!t64, !lse) {
  %o, %l = attn.attention %q, %k, %v {causal, tiles = #attn.tiles<block_m = 192, block_n = 128, mma = wgmma, producer = true, tma = true>}
      : !t64, !t64, !t64 -> !t64, !lse
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %one = arith.constant 1 : index
      %half = arith.constant -0.5 : f32
      %h1 = arith.addi %h, %one : index
      %h1i = arith.index_cast %h1 : index to i64
      %h1f = arith.sitofp %h1i : i64 to f32
      %exponent = arith.mulf %h1f, %half : f32
      %slope = math.exp2 %exponent : f32
      %dist = arith.subi %qi, %ki : index
      %disti = arith.index_cast %dist : index to i64
      %distf = arith.sitofp %disti : i64 to f32
      %bias = arith.mulf %slope, %distf : f32
      %r = arith.subf %s, %bias : f32
      attn.yield %r : f32
    }
  return %o, %l : !t64, !lse
}

// GPU-RUN: --fn three_turns --shape B=2 --shape Nq=1000 --shape Nk=1000 --check
func.func @three_turns(%q: !t64, %k: !t64, %v: !t64) -> (!t64, !lse) {
  %o, %l = attn.attention %q, %k, %v {causal, tiles = #attn.tiles<block_m = 192, block_n = 128, mma = wgmma, ping_pong = true>}
      : !t64, !t64, !t64 -> !t64, !lse
  return %o, %l : !t64, !lse
}

// The gradient kernels' producer (the default of wgmma gradient kernels):
// TMA loads, and the producer's copies where TMA cannot load (Nq = 77:
// the lse rows are 308 bytes apart, not a multiple of 16). Grouped-query
// heads, causal.
// GPU-RUN: --fn grads_bwd --shape B=2 --shape Nq=1000 --shape Nk=1000 --check
// GPU-RUN: --fn grads_bwd --shape B=1 --shape Nq=77 --shape Nk=77 --check
// GPU-RUN: --fn grads_bwd --shape B=1 --shape Nq=300 --shape Nk=1500 --check
func.func @grads(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x2x?x128xbf16>,
                 %v: tensor<?x2x?x128xbf16>)
    -> (tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>) attributes {attn.backward} {
  %o, %l = attn.attention %q, %k, %v {causal}
      : tensor<?x8x?x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16>
      -> tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>
  return %o, %l : tensor<?x8x?x128xbf16>, tensor<?x8x?xf32>
}
