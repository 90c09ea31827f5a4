//===- ExpectReference.h - Outputs against the reference --------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_TEST_UNIT_RUNTIME_EXPECTREFERENCE_H
#define ATTNC_TEST_UNIT_RUNTIME_EXPECTREFERENCE_H

#include "TestSupport.h"

#include <gtest/gtest.h>

namespace attnc::test {

/// Expects o and lse of `data` within `tol` of the fp64 reference of
/// `function`'s ops.
inline void expectMatchesReference(const AttentionData &data,
                                   const pkg::Function &function,
                                   double tol = 1e-5) {
  auto errors = data.referenceErrors(function);
  ASSERT_TRUE(errors) << errors.status().message();
  EXPECT_LT(errors->first, tol) << "o";
  EXPECT_LT(errors->second, tol) << "lse";
}

/// The same for attentionFunction.
inline void expectMatchesReference(const AttentionData &data,
                                   double tol = 1e-5) {
  expectMatchesReference(data, attentionFunction("attention", "test_attention"),
                         tol);
}

} // namespace attnc::test

#endif // ATTNC_TEST_UNIT_RUNTIME_EXPECTREFERENCE_H
