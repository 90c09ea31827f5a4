//===- TestSupport.cpp - Data and packages for runtime tests --------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "TestSupport.h"

#include "lib/reference/Attention.h"

#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>

using namespace attnc;
using namespace attnc::pkg;

StatusOr<std::vector<uint8_t>> test::readBytes(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return Status::error("cannot open " + path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(file), {});
}

static TensorSig tensor(std::string name, DType dtype, std::vector<Dim> shape) {
  return TensorSig{std::move(name), dtype, std::move(shape)};
}

static Kernel hostKernel(std::string entry,
                         std::vector<std::vector<GridTerm>> grid) {
  Kernel kernel;
  kernel.target = "host";
  kernel.blob = "host";
  kernel.entry = std::move(entry);
  kernel.grid = std::move(grid);
  return kernel;
}

static Function attentionFunction(std::string name, std::string entry) {
  Dim b = Dim::named("B"), n = Dim::named("N"), m = Dim::named("M");
  Dim hq = Dim::fixed(test::kHeadsQ), hkv = Dim::fixed(test::kHeadsKV);
  Dim d = Dim::fixed(test::kHeadDim);
  Function fn;
  fn.name = std::move(name);
  fn.inputs = {tensor("q", DType::F32, {b, hq, n, d}),
               tensor("k", DType::F32, {b, hkv, m, d}),
               tensor("v", DType::F32, {b, hkv, m, d})};
  fn.outputs = {tensor("out", DType::F32, {b, hq, n, d}),
                tensor("lse", DType::F32, {b, hq, n})};
  // One block per query row: x = row, y = head, z = batch.
  fn.kernels = {hostKernel(std::move(entry), {{GridTerm{1, "N", 1}},
                                              {GridTerm{test::kHeadsQ}},
                                              {GridTerm{1, "B", 1}}})};
  AttentionSpec spec;
  spec.scale = test::kScale;
  fn.attention = spec;
  return fn;
}

static Function blocksFunction() {
  Function fn;
  fn.name = "blocks";
  fn.inputs = {tensor("x", DType::I64, {Dim::named("N")})};
  fn.outputs = {tensor("blocks", DType::I64, {Dim::named("G")}),
                tensor("calls", DType::I64, {Dim::fixed(1)})};
  fn.kernels = {
      hostKernel("test_blocks", {{GridTerm{1, "N", 4}}, {GridTerm{2}}})};
  return fn;
}

Package test::makeTestPackage(std::vector<uint8_t> kernelLibrary) {
  Package package;
  package.producer = "attnc runtime tests";
  package.functions = {
      attentionFunction("attention", "test_attention"),
      attentionFunction("attention_noscale", "test_attention_noscale"),
      blocksFunction()};
  package.blobs = {Blob{"host", "host-so", std::move(kernelLibrary)}};
  return package;
}

static int64_t product(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t extent : shape)
    n *= extent;
  return n;
}

test::AttentionData::AttentionData(int64_t batch, int64_t seqQ, int64_t seqK,
                                   uint64_t seed)
    : qShape{batch, kHeadsQ, seqQ, kHeadDim}, kvShape{batch, kHeadsKV, seqK,
                                                      kHeadDim},
      oShape{batch, kHeadsQ, seqQ, kHeadDim}, lseShape{batch, kHeadsQ, seqQ} {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (auto *tensor : {&q, &k, &v}) {
    tensor->resize(product(tensor == &q ? qShape : kvShape));
    for (float &x : *tensor)
      x = normal(rng);
  }
  o.assign(product(oShape), std::numeric_limits<float>::quiet_NaN());
  lse.assign(product(lseShape), std::numeric_limits<float>::quiet_NaN());
}

static double relativeError(const std::vector<float> &actual,
                            const std::vector<double> &expected) {
  double diff2 = 0, ref2 = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    if (std::isnan(actual[i]) ||
        (!std::isfinite(expected[i]) && actual[i] != expected[i]))
      return std::numeric_limits<double>::infinity();
    if (std::isfinite(expected[i])) {
      diff2 += (actual[i] - expected[i]) * (actual[i] - expected[i]);
      ref2 += expected[i] * expected[i];
    }
  }
  return ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
}

StatusOr<std::pair<double, double>>
test::AttentionData::referenceErrors() const {
  AttentionSpec spec;
  spec.scale = kScale;
  ref::AttentionShape shape{qShape[0],  kHeadsQ,  kHeadsKV, qShape[2],
                            kvShape[2], kHeadDim, kHeadDim};
  std::vector<double> qd(q.begin(), q.end()), kd(k.begin(), k.end()),
      vd(v.begin(), v.end()), out(o.size()), lseOut(lse.size());
  if (Status s = ref::attentionForward(spec, shape, qd.data(), kd.data(),
                                       vd.data(), out.data(), lseOut.data());
      !s)
    return s;
  return std::make_pair(relativeError(o, out), relativeError(lse, lseOut));
}
