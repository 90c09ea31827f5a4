//===- GemmChoice.h - Which cuBLASLt candidate a GEMM runs ------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// cuBLASLt's heuristic ranks its algorithms for a shape; the runtime runs
// its first, except where the first leaves K to one SM per tile: a long
// product (K at least 4x the larger of M and N, a weight gradient summed
// over many tokens) into tiles that fill at most one wave of SMs. There
// the first candidate that splits K runs instead (H100: gpt_125m's 2048 x
// 768 x 16384 weight gradients 0.067 ms against 0.085-0.096 for the
// heuristic's first; bench/NOTES.md). The choice reads only the heuristic's
// list, which is the same on every run of one device and library, so the
// runs keep computing the same bits.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_RUNTIME_GEMMCHOICE_H
#define ATTNC_RUNTIME_GEMMCHOICE_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace attnc::rt::detail {

/// What the choice reads of one of the heuristic's candidates.
struct GemmCandidate {
  /// The parts K is split into (CUBLASLT_ALGO_CONFIG_SPLITK_NUM; 1: none).
  int splitK = 1;
  /// Waves of thread blocks over the SMs (cuBLASLt's wavesCount).
  float waves = 0;
};

/// The index in `candidates` (the heuristic's order, not empty) of the
/// algorithm to run a GEMM of an M x N result over K with.
size_t chooseGemmCandidate(const std::vector<GemmCandidate> &candidates,
                           int64_t m, int64_t n, int64_t k);

} // namespace attnc::rt::detail

#endif // ATTNC_RUNTIME_GEMMCHOICE_H
