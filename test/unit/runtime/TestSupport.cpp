//===- TestSupport.cpp - Data and packages for runtime tests --------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "TestSupport.h"

#include "lib/reference/Program.h"

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

static Kernel hostKernel(std::string name, std::string entry,
                         std::vector<std::vector<GridTerm>> grid) {
  Kernel kernel;
  kernel.name = std::move(name);
  kernel.target = "host";
  kernel.blob = "host";
  kernel.entry = std::move(entry);
  kernel.grid = std::move(grid);
  return kernel;
}

/// One block per query row: x = row, y = head, z = batch.
static std::vector<std::vector<GridTerm>> rowGrid() {
  return {
      {GridTerm{1, {"N"}, 1}}, {GridTerm{test::kHeadsQ}}, {GridTerm{1, {"B"}, 1}}};
}

static OpSpec attentionOp(std::vector<std::string> operands,
                          std::vector<std::string> results) {
  AttentionSpec spec;
  spec.scale = test::kScale;
  return OpSpec{"attention", std::move(operands), std::move(results), spec, {}};
}

Function test::attentionFunction(std::string name, std::string entry) {
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
  fn.steps = {Step{"attention", {"q", "k", "v", "out", "lse"}}};
  fn.kernels = {hostKernel("attention", std::move(entry), rowGrid())};
  fn.ops = {attentionOp({"q", "k", "v"}, {"out", "lse"})};
  return fn;
}

Function test::chainFunction() {
  Function fn = attentionFunction("chain", "test_attention");
  std::vector<Dim> rows = fn.outputs[0].shape, lse = fn.outputs[1].shape;
  fn.buffers = {Buffer{tensor("t0", DType::F32, rows), 0},
                Buffer{tensor("lse0", DType::F32, lse), 1},
                Buffer{tensor("t1", DType::F32, rows), 2},
                Buffer{tensor("t2", DType::F32, rows), 0}};
  fn.steps = {Step{"attention", {"q", "k", "v", "t0", "lse0"}},
              Step{"scale", {"t0", "t1"}},
              Step{"attention", {"t1", "k", "v", "t2", "lse"}},
              Step{"scale", {"t2", "out"}}};
  fn.kernels.push_back(hostKernel("scale", "test_scale", rowGrid()));
  fn.ops = {attentionOp({"q", "k", "v"}, {"t0", ""}),
            OpSpec{"cast", {"t0"}, {"t1"}, {}, CastSpec{2}},
            attentionOp({"t1", "k", "v"}, {"t2", "lse"}),
            OpSpec{"cast", {"t2"}, {"out"}, {}, CastSpec{2}}};
  return fn;
}

Function test::pairFunction() {
  Function fn = attentionFunction("pair", "test_attention");
  std::vector<Dim> rows = fn.outputs[0].shape, lse = fn.outputs[1].shape;
  fn.buffers = {Buffer{tensor("t0", DType::F32, rows), 0},
                Buffer{tensor("lse0", DType::F32, lse), 1},
                Buffer{tensor("t1", DType::F32, rows), 2}};
  fn.steps = {Step{"attention", {"q", "k", "v", "t0", "lse0"}},
              Step{"attention", {"q", "k", "v", "t1", "lse"}, true},
              Step{"scale", {"t0", "out"}}};
  fn.kernels.push_back(hostKernel("scale", "test_scale", rowGrid()));
  fn.ops = {attentionOp({"q", "k", "v"}, {"t0", "lse0"}),
            attentionOp({"q", "k", "v"}, {"t1", "lse"}),
            OpSpec{"cast", {"t0"}, {"out"}, {}, CastSpec{2}}};
  return fn;
}

Function test::scaleInPlaceFunction() {
  Function fn;
  fn.name = "scale_in_place";
  std::vector<Dim> rows = {Dim::named("B"), Dim::fixed(test::kHeadsQ),
                           Dim::named("N"), Dim::fixed(test::kHeadDim)};
  fn.inputs = {tensor("x", DType::F32, rows)};
  fn.outputs = {tensor("y", DType::F32, rows)};
  fn.updates = {{"y", "x"}};
  fn.steps = {Step{"scale", {"x", "y"}}};
  fn.kernels = {hostKernel("scale", "test_scale", rowGrid())};
  fn.ops = {OpSpec{"cast", {"x"}, {"y"}, {}, CastSpec{2}}};
  return fn;
}

static Function blocksFunction() {
  Function fn;
  fn.name = "blocks";
  fn.inputs = {tensor("x", DType::I64, {Dim::named("N")})};
  fn.outputs = {tensor("blocks", DType::I64, {Dim::named("G")}),
                tensor("calls", DType::I64, {Dim::fixed(1)})};
  fn.steps = {Step{"blocks", {"x", "blocks", "calls"}}};
  fn.kernels = {hostKernel("blocks", "test_blocks",
                           {{GridTerm{1, {"N"}, 4}}, {GridTerm{2}}})};
  return fn;
}

Package test::makeTestPackage(std::vector<uint8_t> kernelLibrary) {
  Package package;
  package.producer = "attnc runtime tests";
  package.functions = {
      attentionFunction("attention", "test_attention"),
      attentionFunction("attention_noscale", "test_attention_noscale"),
      blocksFunction(), chainFunction()};
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
test::AttentionData::referenceErrors(const Function &function) const {
  ref::SymbolValues symbols = {
      {"B", qShape[0]}, {"N", qShape[2]}, {"M", kvShape[2]}};
  ref::ValueData inputs = {{"q", std::vector<double>(q.begin(), q.end())},
                           {"k", std::vector<double>(k.begin(), k.end())},
                           {"v", std::vector<double>(v.begin(), v.end())}};
  auto values = ref::evaluateProgram(function, symbols, std::move(inputs));
  if (!values)
    return values.status();
  return std::make_pair(
      relativeError(o, values->at(function.outputs[0].name)),
      relativeError(lse, values->at(function.outputs[1].name)));
}
