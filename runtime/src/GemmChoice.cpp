//===- GemmChoice.cpp - Which of cuBLASLt's candidates a GEMM runs --------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "GemmChoice.h"

#include <algorithm>

size_t attnc::rt::detail::chooseGemmCandidate(
    const std::vector<GemmCandidate> &candidates, int64_t m, int64_t n,
    int64_t k) {
  const GemmCandidate &first = candidates.front();
  bool oneTilePerSm = first.splitK == 1 && first.waves <= 1.0f;
  if (!oneTilePerSm || k < 4 * std::max(m, n))
    return 0;
  auto split = std::find_if(
      candidates.begin(), candidates.end(),
      [](const GemmCandidate &candidate) { return candidate.splitK > 1; });
  return split == candidates.end() ? 0 : split - candidates.begin();
}
