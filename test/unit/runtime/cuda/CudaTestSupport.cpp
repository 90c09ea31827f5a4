//===- CudaTestSupport.cpp - CUDA kernels and packages for tests ----------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "CudaTestSupport.h"

#include "test/unit/runtime/TestSupport.h"

using namespace attnc;
using namespace attnc::pkg;

// Generated from the nvcc outputs by EmbedFile.cmake.
extern const unsigned char kTestKernelsCubin[], kTestKernelsPtx[];
extern const size_t kTestKernelsCubinSize, kTestKernelsPtxSize;

std::vector<uint8_t> test::testKernelsCubin() {
  return {kTestKernelsCubin, kTestKernelsCubin + kTestKernelsCubinSize};
}

std::vector<uint8_t> test::testKernelsPtx() {
  return {kTestKernelsPtx, kTestKernelsPtx + kTestKernelsPtxSize};
}

static Kernel gpuKernel(const std::string &target, std::string entry,
                        std::vector<std::vector<GridTerm>> grid,
                        int64_t blockX) {
  Kernel kernel;
  kernel.target = target;
  kernel.blob = "gpu";
  kernel.entry = std::move(entry);
  kernel.grid = std::move(grid);
  kernel.block[0] = blockX;
  return kernel;
}

Package test::makeCudaTestPackage(const std::string &blobKind,
                                  std::vector<uint8_t> code,
                                  const std::string &target) {
  // The host test package's attention, with a kernel of one thread per row.
  Function attention = makeTestPackage({}).functions[0];
  attention.kernels = {gpuKernel(
      target, "test_attention",
      {{GridTerm{1, "N", 128}}, {GridTerm{kHeadsQ}}, {GridTerm{1, "B", 1}}},
      128)};

  Function reverse;
  reverse.name = "reverse";
  reverse.inputs = {TensorSig{"x", DType::F32, {Dim::named("N")}}};
  reverse.outputs = {TensorSig{"y", DType::F32, {Dim::named("N")}}};
  reverse.kernels = {gpuKernel(target, "test_reverse", {}, 1024)};
  reverse.kernels[0].dynamicSharedMemoryBytes = kReverseSharedBytes;

  Package package;
  package.producer = "attnc cuda runtime tests";
  package.functions = {std::move(attention), std::move(reverse)};
  package.blobs = {Blob{"gpu", blobKind, std::move(code)}};
  return package;
}
