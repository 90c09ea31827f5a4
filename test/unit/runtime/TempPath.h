//===- TempPath.h - Per-process temporary paths for gtest cases -*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_TEST_UNIT_RUNTIME_TEMPPATH_H
#define ATTNC_TEST_UNIT_RUNTIME_TEMPPATH_H

#include <gtest/gtest.h>
#include <string>
#include <unistd.h>

namespace attnc::test {

/// A package path under the test temp directory that no concurrently running
/// test uses: ctest runs every test case as its own process.
inline std::string uniqueTempPath(const std::string &stem) {
  return ::testing::TempDir() + stem + "-" + std::to_string(getpid()) +
         ".attnpkg";
}

} // namespace attnc::test

#endif // ATTNC_TEST_UNIT_RUNTIME_TEMPPATH_H
