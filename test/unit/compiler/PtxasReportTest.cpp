//===- PtxasReportTest.cpp - parsePtxasReport -----------------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "compiler/Target/CUDA/PtxasReport.h"

#include <gtest/gtest.h>

namespace {

// `ptxas -v -arch=sm_90a` output for two kernels, the second with a spill
// and both with wgmma serialization warnings, which ptxas prints before the
// per-kernel lines. The C7513 and per-kernel lines are verbatim from CUDA
// 13.0's ptxas on an attnc kernel; the C7510 line follows their pattern.
constexpr const char *kLog =
    "ptxas info    : (C7513) Potential Performance Loss: wgmma.mma_async "
    "instructions are serialized due to non wgmma instructions defining input "
    "registers of a wgmma between start and end of the pipeline stage in the "
    "function 'hd128'\n"
    "ptxas info    : (C7510) Potential Performance Loss: wgmma.mma_async "
    "instructions are serialized due to the presence of Extern calls in the "
    "function 'causal'\n"
    "ptxas info    : (C7513) Potential Performance Loss: wgmma.mma_async "
    "instructions are serialized due to non wgmma instructions defining input "
    "registers of a wgmma between start and end of the pipeline stage in the "
    "function 'hd128'\n"
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function 'hd128' for 'sm_90a'\n"
    "ptxas info    : Function properties for hd128\n"
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 234 registers, used 1 barriers\n"
    "ptxas info    : Compiling entry function 'causal' for 'sm_90a'\n"
    "ptxas info    : Function properties for causal\n"
    "    24 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
    "ptxas info    : Used 255 registers, used 1 barriers\n"
    "ptxas info    : Compile time = 420.433 ms\n";

TEST(CompilerPtxasReport, ReadsResourcesPerKernel) {
  attnc::PtxasReport report = attnc::parsePtxasReport(kLog);
  ASSERT_EQ(report.size(), 2u);
  EXPECT_EQ(report["hd128"]["registers"], 234);
  EXPECT_EQ(report["hd128"]["stack_bytes"], 0);
  EXPECT_EQ(report["hd128"]["spill_store_bytes"], 0);
  EXPECT_EQ(report["causal"]["registers"], 255);
  EXPECT_EQ(report["causal"]["stack_bytes"], 24);
  EXPECT_EQ(report["causal"]["spill_store_bytes"], 8);
  EXPECT_EQ(report["causal"]["spill_load_bytes"], 12);
}

TEST(CompilerPtxasReport, AttributesWgmmaWarningsToTheKernelTheyName) {
  attnc::PtxasReport report = attnc::parsePtxasReport(kLog);
  EXPECT_EQ(report["hd128"]["wgmma_serialization_warnings"], 2);
  EXPECT_EQ(report["causal"]["wgmma_serialization_warnings"], 1);
}

TEST(CompilerPtxasReport, CleanKernelsHaveNoWarningEntry) {
  attnc::PtxasReport report = attnc::parsePtxasReport(
      "ptxas info    : Compiling entry function 'k' for 'sm_90a'\n"
      "ptxas info    : Function properties for k\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 40 registers, used 0 barriers\n");
  ASSERT_EQ(report.count("k"), 1u);
  EXPECT_EQ(report["k"].count("wgmma_serialization_warnings"), 0u);
  EXPECT_EQ(report["k"]["registers"], 40);
}

TEST(CompilerPtxasReport, EmptyLogHasNoKernels) {
  EXPECT_TRUE(attnc::parsePtxasReport("").empty());
}

} // namespace
