//===- make-cuda-test-package.cpp - Write the CUDA tests' package ---------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Usage: make-cuda-test-package cubin|ptx OUTPUT.attnpkg
// Writes makeCudaTestPackage() with the built-in test kernels, for the
// attn-run tests on a cuda device.
//
//===----------------------------------------------------------------------===//

#include "CudaTestSupport.h"

#include <cstdio>
#include <string>

using namespace attnc;

int main(int argc, char **argv) {
  std::string kind = argc == 3 ? argv[1] : "";
  if (kind != "cubin" && kind != "ptx") {
    std::fprintf(stderr,
                 "usage: make-cuda-test-package cubin|ptx OUTPUT.attnpkg\n");
    return 1;
  }
  Status status = pkg::writeFile(
      test::makeCudaTestPackage(kind, kind == "cubin" ? test::testKernelsCubin()
                                                      : test::testKernelsPtx()),
      argv[2]);
  if (!status) {
    std::fprintf(stderr, "make-cuda-test-package: error: %s\n",
                 status.message().c_str());
    return 1;
  }
  return 0;
}
