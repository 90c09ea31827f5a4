//===- make-test-package.cpp - Write the runtime tests' package -----------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Usage: make-test-package KERNEL_LIBRARY OUTPUT.attnpkg
// Writes makeTestPackage() for the attn-run tests, at test time, so that no
// binary package is committed.
//
//===----------------------------------------------------------------------===//

#include "TestSupport.h"

#include <cstdio>

using namespace attnc;

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: make-test-package KERNEL_LIBRARY OUTPUT\n");
    return 1;
  }
  auto library = test::readBytes(argv[1]);
  Status status = library
                      ? pkg::writeFile(test::makeTestPackage(*library), argv[2])
                      : library.status();
  if (!status) {
    std::fprintf(stderr, "make-test-package: error: %s\n",
                 status.message().c_str());
    return 1;
  }
  return 0;
}
