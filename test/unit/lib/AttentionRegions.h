//===- AttentionRegions.h - Mask and score regions for tests ----*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The regions of common attention variants, shared by the forward and
// backward reference tests.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_TEST_UNIT_LIB_ATTENTIONREGIONS_H
#define ATTNC_TEST_UNIT_LIB_ATTENTIONREGIONS_H

#include "attnc/package/Package.h"

#include <string>
#include <vector>

namespace attnc::testutil {

/// A region op; float constants take `value`, integer ones `intValue`.
inline pkg::RegionOp op(std::string name, std::vector<int64_t> operands,
                        std::string type, std::string predicate = "",
                        double value = 0, int64_t intValue = 0) {
  return pkg::RegionOp{std::move(name), std::move(operands),
                       std::move(type), std::move(predicate),
                       value,           intValue};
}

/// Prefix-LM: k_idx < prefix or k_idx <= q_idx. Arguments: b=0 h=1 q=2 k=3.
inline pkg::Region prefixLmMask(int64_t prefix) {
  return pkg::Region{4,
                     {op("arith.constant", {}, "index", "", 0, prefix),
                      op("arith.cmpi", {3, 4}, "i1", "slt"),
                      op("arith.cmpi", {3, 2}, "i1", "sle"),
                      op("arith.ori", {5, 6}, "i1")},
                     7};
}

/// cap * tanh(s / cap). Arguments: s=0 b=1 h=2 q=3 k=4.
inline pkg::Region softcapScore(double cap) {
  return pkg::Region{5,
                     {op("arith.constant", {}, "f32", "", cap),
                      op("arith.divf", {0, 5}, "f32"),
                      op("math.tanh", {6}, "f32"),
                      op("arith.mulf", {7, 5}, "f32")},
                     8};
}

/// ALiBi: s - slope_h * (q_idx - k_idx) with slope_h = 2^(-8 (h + 1) / H).
inline pkg::Region alibiScore(int64_t heads) {
  return pkg::Region{5,
                     {
                         op("arith.index_cast", {2}, "i64"),     // 5: h
                         op("arith.sitofp", {5}, "f64"),         // 6
                         op("arith.constant", {}, "f64", "", 1), // 7
                         op("arith.addf", {6, 7}, "f64"),        // 8: h + 1
                         op("arith.constant", {}, "f64", "",
                            -8.0 / static_cast<double>(heads)), // 9
                         op("arith.mulf", {8, 9}, "f64"),       // 10
                         op("math.exp2", {10}, "f64"),          // 11: slope
                         op("arith.subi", {3, 4}, "index"),     // 12: q - k
                         op("arith.index_cast", {12}, "i32"),   // 13
                         op("arith.sitofp", {13}, "f32"),       // 14
                         op("arith.mulf", {11, 14}, "f32"),     // 15
                         op("arith.subf", {0, 15}, "f32"),      // 16
                     },
                     16};
}

} // namespace attnc::testutil

#endif // ATTNC_TEST_UNIT_LIB_ATTENTIONREGIONS_H
