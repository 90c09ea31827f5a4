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

static Kernel gpuKernel(const std::string &target, std::string name,
                        std::string entry,
                        std::vector<std::vector<GridTerm>> grid,
                        int64_t blockX) {
  Kernel kernel;
  kernel.name = std::move(name);
  kernel.target = target;
  kernel.blob = "gpu";
  kernel.entry = std::move(entry);
  kernel.grid = std::move(grid);
  kernel.block[0] = blockX;
  return kernel;
}

/// A kernel of one thread per query row, as test_attention and test_scale.
static Kernel rowKernel(const std::string &target, std::string name,
                        std::string entry) {
  return gpuKernel(target, std::move(name), std::move(entry),
                   {{GridTerm{1, {"N"}, 128}},
                    {GridTerm{test::kHeadsQ}},
                    {GridTerm{1, {"B"}, 1}}},
                   128);
}

static Function pointersFunction(const std::string &target) {
  Dim n = Dim::named("N");
  Function fn;
  fn.name = "pointers";
  fn.inputs = {TensorSig{"n", DType::F32, {n}}};
  fn.outputs = {TensorSig{"ptrs", DType::I64, {Dim::fixed(2)}}};
  fn.buffers = {Buffer{TensorSig{"a", DType::F32, {n}}, 0},
                Buffer{TensorSig{"b", DType::F32, {n}}, 1}};
  fn.steps = {Step{"pointers", {"ptrs", "a", "b"}}};
  fn.kernels = {gpuKernel(target, "pointers", "test_pointers", {}, 1)};
  return fn;
}

/// x f32 [N, 16] -> valid i64 [1]: the valid bits of x's tensor map.
static Function tensorMapFunction(const std::string &target) {
  Function fn;
  fn.name = "tensor_map";
  fn.inputs = {TensorSig{"x", DType::F32, {Dim::named("N"), Dim::fixed(16)}}};
  fn.outputs = {TensorSig{"valid", DType::I64, {Dim::fixed(1)}}};
  fn.steps = {Step{"tensor_map", {"x", "valid"}}};
  fn.kernels = {gpuKernel(target, "tensor_map", "test_tensor_map", {}, 1)};
  fn.kernels[0].tensorMaps = {TensorMap{0, {16, 1}, 0}};
  return fn;
}

Package test::makeCudaTestPackage(const std::string &blobKind,
                                  std::vector<uint8_t> code,
                                  const std::string &target) {
  Function attention = test::attentionFunction("attention", "test_attention");
  attention.kernels = {rowKernel(target, "attention", "test_attention")};
  Function chain = test::chainFunction();
  chain.kernels = {rowKernel(target, "attention", "test_attention"),
                   rowKernel(target, "scale", "test_scale")};
  Function pair = test::pairFunction();
  pair.kernels = chain.kernels;

  Function reverse;
  reverse.name = "reverse";
  reverse.inputs = {TensorSig{"x", DType::F32, {Dim::named("N")}}};
  reverse.outputs = {TensorSig{"y", DType::F32, {Dim::named("N")}}};
  reverse.steps = {Step{"reverse", {"x", "y"}}};
  reverse.kernels = {gpuKernel(target, "reverse", "test_reverse", {}, 1024)};
  reverse.kernels[0].dynamicSharedMemoryBytes = kReverseSharedBytes;

  Function tall = reverse;
  tall.name = "tall";
  tall.steps = {Step{"tall", {"x", "y"}}};
  tall.kernels = {gpuKernel(target, "tall", "test_tall",
                            {{GridTerm{1}}, {GridTerm{1, {"N"}, 1}}}, 1)};

  Package package;
  package.producer = "attnc cuda runtime tests";
  package.functions = {std::move(attention), std::move(reverse),
                       std::move(chain),     pointersFunction(target),
                       std::move(tall),      tensorMapFunction(target),
                       std::move(pair)};
  package.blobs = {Blob{"gpu", blobKind, std::move(code)}};
  return package;
}
