//===- GemmChoiceTest.cpp - Which of cuBLASLt's candidates a GEMM runs ----===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The candidate lists are cuBLASLt 13.0's on an H100 for gpt_125m's step
// (bench/results/2026-12-06-NVIDIA-H100-determinism.md).
//
//===----------------------------------------------------------------------===//

#include "GemmChoice.h"

#include <gtest/gtest.h>

using attnc::rt::detail::chooseGemmCandidate;
using attnc::rt::detail::GemmCandidate;

namespace {

// The FFN's weight gradient: unsplit tiles in one wave first, split-K 2
// (1.27x faster measured) fourth.
TEST(RuntimeGemmChoice, LongProductIntoOneWaveTakesTheFirstSplit) {
  std::vector<GemmCandidate> candidates = {{1, 0.97f}, {1, 0.97f}, {1, 1.0f},
                                           {2, 0.48f}, {2, 0.5f},  {3, 0.33f}};
  EXPECT_EQ(chooseGemmCandidate(candidates, 2048, 768, 16384), 3u);
  EXPECT_EQ(chooseGemmCandidate(candidates, 768, 2048, 16384), 3u);
}

// q/k/v's weight gradients: the heuristic already splits K.
TEST(RuntimeGemmChoice, FirstThatSplitsStays) {
  std::vector<GemmCandidate> candidates = {{3, 0.27f}, {4, 0.23f}, {1, 0.5f}};
  EXPECT_EQ(chooseGemmCandidate(candidates, 768, 768, 16384), 0u);
}

// Projections over 16384 tokens: many waves, a short K.
TEST(RuntimeGemmChoice, ManyWavesOrShortProductsStay) {
  std::vector<GemmCandidate> manyWaves = {{1, 2.91f}, {2, 1.5f}};
  EXPECT_EQ(chooseGemmCandidate(manyWaves, 16384, 768, 768), 0u);
  EXPECT_EQ(chooseGemmCandidate(manyWaves, 768, 768, 16384), 0u);
  std::vector<GemmCandidate> oneWave = {{1, 0.9f}, {2, 0.45f}};
  // K just under 4x the larger side: unchanged; at 4x: split.
  EXPECT_EQ(chooseGemmCandidate(oneWave, 2048, 768, 8191), 0u);
  EXPECT_EQ(chooseGemmCandidate(oneWave, 2048, 768, 8192), 1u);
}

TEST(RuntimeGemmChoice, NoSplitCandidateKeepsTheFirst) {
  std::vector<GemmCandidate> candidates = {{1, 0.97f}, {1, 1.0f}};
  EXPECT_EQ(chooseGemmCandidate(candidates, 2048, 768, 16384), 0u);
  EXPECT_EQ(chooseGemmCandidate({{1, 0.5f}}, 64, 64, 4096), 0u);
}

} // namespace
