//===- RuntimeTest.cpp - Tests of the C++ runtime API ---------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ExpectReference.h"
#include "TempPath.h"

#include "attnc/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <malloc.h>
#include <optional>
#include <set>
#include <stdexcept>

using namespace attnc;

namespace {

/// Sets an environment variable for one scope.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }

private:
  const char *name_;
  std::optional<std::string> old_;
};

class RuntimeTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto library = test::readBytes(ATTNC_TEST_KERNELS);
    ASSERT_TRUE(library) << library.status().message();
    package_ = test::makeTestPackage(std::move(*library));
  }

  /// Serializes `package` and loads it on a fresh host runtime.
  static StatusOr<rt::Package> load(const pkg::Package &package) {
    auto bytes = pkg::serialize(package);
    if (!bytes)
      return bytes.status();
    auto runtime = rt::Runtime::open("host");
    if (!runtime)
      return runtime.status();
    return runtime->loadFromMemory(bytes->data(), bytes->size());
  }

  /// Loads `package` and looks up `name`; a failure fails the test (gtest
  /// reports the exception).
  static rt::Function function(const pkg::Package &package,
                               const std::string &name) {
    auto loaded = load(package);
    if (!loaded)
      throw std::runtime_error(loaded.status().message());
    auto fn = loaded->function(name);
    if (!fn)
      throw std::runtime_error(fn.status().message());
    return *fn;
  }

  static std::vector<rt::TensorRef> inputs(test::AttentionData &data) {
    return {{data.q.data(), pkg::DType::F32, data.qShape, {}},
            {data.k.data(), pkg::DType::F32, data.kvShape, {}},
            {data.v.data(), pkg::DType::F32, data.kvShape, {}}};
  }
  static std::vector<rt::TensorRef> outputs(test::AttentionData &data) {
    return {{data.o.data(), pkg::DType::F32, data.oShape, {}},
            {data.lse.data(), pkg::DType::F32, data.lseShape, {}}};
  }

  /// The message of a failed call of "attention" on `in` and `out`.
  std::string callError(std::vector<rt::TensorRef> in,
                        std::vector<rt::TensorRef> out,
                        void *stream = nullptr) {
    Status status = function(package_, "attention").call(in, out, stream);
    EXPECT_FALSE(status);
    return status.message();
  }

  /// Runs "blocks" with grid (ceildiv(n, 4), 2); returns blocks[0, g) and the
  /// number of entry calls.
  std::pair<std::vector<int64_t>, int64_t> runBlocks(int64_t n, int64_t g) {
    std::vector<int64_t> x(n), blocks(g, -1), calls(1, 0);
    rt::Function fn = function(package_, "blocks");
    Status status = fn.call({{x.data(), pkg::DType::I64, {n}, {}}},
                            {{blocks.data(), pkg::DType::I64, {g}, {}},
                             {calls.data(), pkg::DType::I64, {1}, {}}});
    EXPECT_TRUE(status) << status.message();
    return {blocks, calls[0]};
  }

  pkg::Package package_;
};

//===----------------------------------------------------------------------===//
// Devices
//===----------------------------------------------------------------------===//

TEST_F(RuntimeTest, OpensHost) {
  auto runtime = rt::Runtime::open("host");
  ASSERT_TRUE(runtime) << runtime.status().message();
  EXPECT_EQ(runtime->device(), "host");
}

TEST_F(RuntimeTest, RejectsUnknownDevices) {
  for (const char *device : {"tpu", "cuda", "cuda:", "cuda:x", "Host", ""}) {
    auto runtime = rt::Runtime::open(device);
    ASSERT_FALSE(runtime) << device;
    EXPECT_EQ(runtime.status().message(),
              "unknown device '" + std::string(device) +
                  "'; expected 'host' or 'cuda:N' (N a device ordinal)");
  }
}

TEST_F(RuntimeTest, RejectsBadThreadCount) {
  for (const char *value : {"0", "-2", "abc", "4x", "100000"}) {
    ScopedEnv env("ATTNC_NUM_THREADS", value);
    auto runtime = rt::Runtime::open("host");
    ASSERT_FALSE(runtime) << value;
    EXPECT_EQ(runtime.status().message(),
              "ATTNC_NUM_THREADS must be an integer in [1, 4096], got '" +
                  std::string(value) + "'");
  }
}

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

TEST_F(RuntimeTest, ListsAndFindsFunctions) {
  auto loaded = load(package_);
  ASSERT_TRUE(loaded) << loaded.status().message();
  EXPECT_EQ(loaded->functionNames(),
            (std::vector<std::string>{"attention", "attention_noscale",
                                      "blocks", "chain"}));
  EXPECT_EQ(loaded->origin(), "<memory>");
  auto fn = loaded->function("attention");
  ASSERT_TRUE(fn);
  EXPECT_EQ(fn->name(), "attention");
  EXPECT_EQ(fn->signature().inputs.size(), 3u);
  ASSERT_TRUE(fn->signature().ops[0].attention);
  EXPECT_EQ(fn->signature().ops[0].attention->scale, test::kScale);

  auto missing = loaded->function("attention_bwd");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.status().message(),
            "no function 'attention_bwd' in <memory>; available: attention, "
            "attention_noscale, blocks, chain");
}

TEST_F(RuntimeTest, LoadsFromFile) {
  std::string path = test::uniqueTempPath("runtime-test-load");
  ASSERT_TRUE(pkg::writeFile(package_, path));
  auto runtime = rt::Runtime::open("host");
  ASSERT_TRUE(runtime);
  auto loaded = runtime->load(path);
  ASSERT_TRUE(loaded) << loaded.status().message();
  EXPECT_EQ(loaded->origin(), path);
  EXPECT_EQ(loaded->manifest().functions.size(), 4u);
  std::remove(path.c_str());
}

TEST_F(RuntimeTest, LoadsHostCodeWithoutATemporaryFile) {
  // Host blobs load from memory files: an unusable TMPDIR does not matter,
  // and a killed process can leave nothing behind in it.
  const char *saved = std::getenv("TMPDIR");
  std::string previous = saved ? saved : "";
  setenv("TMPDIR", "/nonexistent/attnc-tmpdir", 1);
  auto loaded = load(package_);
  if (saved)
    setenv("TMPDIR", previous.c_str(), 1);
  else
    unsetenv("TMPDIR");
  ASSERT_TRUE(loaded) << loaded.status().message();
  test::AttentionData data(1, 4, 4, 0);
  EXPECT_TRUE(function(package_, "attention")
                  .call(inputs(data), outputs(data), nullptr));
}

TEST_F(RuntimeTest, RejectsCorruptFile) {
  std::string path = test::uniqueTempPath("runtime-test-corrupt");
  auto bytes = pkg::serialize(package_);
  ASSERT_TRUE(bytes);
  (*bytes)[bytes->size() / 2] ^= 0x5a;
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char *>(bytes->data()), bytes->size());
  auto runtime = rt::Runtime::open("host");
  ASSERT_TRUE(runtime);
  auto loaded = runtime->load(path);
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.status().message().rfind(path, 0), 0u)
      << loaded.status().message();
  std::remove(path.c_str());

  auto missing = runtime->load(path);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.status().message().find(path), std::string::npos);

  auto truncated = runtime->loadFromMemory(bytes->data(), 20);
  ASSERT_FALSE(truncated);
  EXPECT_EQ(truncated.status().message().rfind("<memory>", 0), 0u);
}

// A manifest whose step passes other arguments than the entry point takes
// (checksums recomputed, so nothing else notices) is refused at load.
TEST_F(RuntimeTest, RejectsArgumentsTheEntryDoesNotTake) {
  package_.functions[1].kernels[0].entry = "test_scale";
  auto loaded = load(package_);
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.status().message(),
            "<memory>: function 'attention_noscale': step 0 (kernel "
            "'attention'): the step passes 5 arguments of ranks [4, 4, 4, 4, "
            "3], the host entry takes 2 of ranks [4, 4]");
}

// An output the function says updates an input may be that input's very
// tensor; any other overlap is still refused.
TEST_F(RuntimeTest, AnOutputMayBeTheInputItUpdates) {
  package_.functions.push_back(test::scaleInPlaceFunction());
  rt::Function fn = function(package_, "scale_in_place");
  std::vector<int64_t> shape = {1, test::kHeadsQ, 3, test::kHeadDim};
  std::vector<float> x(2 * 1 * test::kHeadsQ * 3 * test::kHeadDim);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = float(i);
  rt::TensorRef whole{x.data(), pkg::DType::F32, shape, {}};
  ASSERT_TRUE(fn.call({whole}, {whole}, nullptr));
  EXPECT_EQ(x[5], 10.0f);
  rt::TensorRef shifted{x.data() + test::kHeadDim, pkg::DType::F32, shape, {}};
  auto status = fn.call({whole}, {shifted}, nullptr);
  ASSERT_FALSE(status);
  EXPECT_EQ(status.message(), "output y overlaps input x in memory");
}

TEST_F(RuntimeTest, RejectsMissingEntry) {
  package_.functions[1].kernels[0].entry = "no_such_entry";
  auto loaded = load(package_);
  ASSERT_FALSE(loaded);
  const std::string &message = loaded.status().message();
  EXPECT_EQ(message.rfind("<memory>: function 'attention_noscale': kernel "
                          "'attention': blob 'host' has no entry "
                          "'no_such_entry': ",
                          0),
            0u)
      << message;
  // The dlerror text follows.
  EXPECT_NE(message.find("undefined symbol"), std::string::npos) << message;
}

TEST_F(RuntimeTest, RejectsBlobThatIsNotElf) {
  std::string text = "#!/bin/sh\necho not a library\n";
  package_.blobs[0].data.assign(text.begin(), text.end());
  auto loaded = load(package_);
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.status().message(),
            "<memory>: function 'attention': kernel 'attention': blob 'host' "
            "is not an ELF shared library");
}

TEST_F(RuntimeTest, RejectsBrokenElf) {
  package_.blobs[0].data.resize(64);
  auto loaded = load(package_);
  ASSERT_FALSE(loaded);
  // dlopen's own message follows.
  EXPECT_EQ(loaded.status().message().rfind(
                "<memory>: function 'attention': kernel 'attention': cannot "
                "load blob 'host': ",
                0),
            0u)
      << loaded.status().message();
}

TEST_F(RuntimeTest, RejectsHostKernelInForeignBlob) {
  package_.blobs[0].kind = "ptx";
  auto loaded = load(package_);
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.status().message(),
            "<memory>: function 'attention': kernel 'attention': host kernel "
            "blob 'host' has kind 'ptx', expected 'host-so'");
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

TEST_F(RuntimeTest, MatchesReference) {
  test::AttentionData data(2, 33, 17, /*seed=*/1);
  Status status =
      function(package_, "attention").call(inputs(data), outputs(data));
  ASSERT_TRUE(status) << status.message();
  test::expectMatchesReference(data);
}

TEST_F(RuntimeTest, WrongKernelIsDetected) {
  test::AttentionData data(1, 8, 8, /*seed=*/2);
  ASSERT_TRUE(function(package_, "attention_noscale")
                  .call(inputs(data), outputs(data)));
  auto errors = data.referenceErrors(package_.functions[1]);
  ASSERT_TRUE(errors) << errors.status().message();
  EXPECT_GT(errors->first, 1e-2);
}

TEST_F(RuntimeTest, NoKeysGiveZeroOutputAndInfiniteLse) {
  test::AttentionData data(1, 3, 0, /*seed=*/3);
  std::vector<rt::TensorRef> in = inputs(data);
  in[1].data = in[2].data = nullptr; // empty tensors need no data
  ASSERT_TRUE(function(package_, "attention").call(in, outputs(data)));
  for (float o : data.o)
    EXPECT_EQ(o, 0.0f);
  for (float lse : data.lse)
    EXPECT_EQ(lse, -std::numeric_limits<float>::infinity());
  test::expectMatchesReference(data);
}

/// `data` [B, X, Y, D] with its dims X and Y swapped: [B, Y, X, D] (a
/// [B, H, N, D] tensor stored as [B, N, H, D], or the reverse).
std::vector<float> swapMiddleDims(const std::vector<float> &data, int64_t b,
                                  int64_t x, int64_t y, int64_t d) {
  std::vector<float> swapped(data.size());
  for (int64_t ib = 0; ib < b; ++ib)
    for (int64_t ix = 0; ix < x; ++ix)
      for (int64_t iy = 0; iy < y; ++iy)
        for (int64_t id = 0; id < d; ++id)
          swapped[((ib * y + iy) * x + ix) * d + id] =
              data[((ib * x + ix) * y + iy) * d + id];
  return swapped;
}

TEST_F(RuntimeTest, HonorsStrides) {
  // q and o stored as [B, N, H, D], passed as [B, H, N, D] views.
  const int64_t b = 2, n = 9, m = 5, h = test::kHeadsQ, d = test::kHeadDim;
  test::AttentionData data(b, n, m, /*seed=*/4);
  std::vector<float> qBNHD = swapMiddleDims(data.q, b, h, n, d);
  std::vector<float> oBNHD(data.o.size(), NAN);
  std::vector<int64_t> stridesBNHD = {n * h * d, d, h * d, 1};
  std::vector<rt::TensorRef> in = inputs(data), out = outputs(data);
  in[0].data = qBNHD.data();
  in[0].strides = stridesBNHD;
  out[0].data = oBNHD.data();
  out[0].strides = stridesBNHD;
  Status status = function(package_, "attention").call(in, out);
  ASSERT_TRUE(status) << status.message();
  data.o = swapMiddleDims(oBNHD, b, n, h, d);
  test::expectMatchesReference(data);
}

TEST_F(RuntimeTest, PassesHeadsViews) {
  // q and out are [B, N, H * D] values of the function, which its step
  // reads and writes through heads views as [B, H, N, D].
  const int64_t b = 2, n = 9, m = 5, h = test::kHeadsQ, d = test::kHeadDim;
  pkg::Function fn = test::attentionFunction("heads", "test_attention");
  pkg::Dim rows = fn.inputs[0].shape[2], width = pkg::Dim::fixed(h * d);
  fn.views = {pkg::View{fn.inputs[0], "q_rows", 0, h},
              pkg::View{fn.outputs[0], "out_rows", 0, h}};
  fn.inputs[0] = {
      "q_rows", pkg::DType::F32, {fn.inputs[0].shape[0], rows, width}};
  fn.outputs[0] = {
      "out_rows", pkg::DType::F32, {fn.outputs[0].shape[0], rows, width}};
  package_.functions.push_back(fn);
  test::AttentionData data(b, n, m, /*seed=*/4);
  std::vector<float> qRows = swapMiddleDims(data.q, b, h, n, d);
  std::vector<float> oRows(data.o.size(), NAN);
  std::vector<rt::TensorRef> in = inputs(data), out = outputs(data);
  in[0] = {qRows.data(), pkg::DType::F32, {b, n, h * d}, {}};
  out[0] = {oRows.data(), pkg::DType::F32, {b, n, h * d}, {}};
  Status status = function(package_, "heads").call(in, out);
  ASSERT_TRUE(status) << status.message();
  data.o = swapMiddleDims(oRows, b, n, h, d);
  test::expectMatchesReference(data);
}

TEST_F(RuntimeTest, FunctionKeepsItsCodeAlive) {
  std::optional<rt::Function> fn;
  {
    auto loaded = load(package_); // the runtime handle is gone already
    ASSERT_TRUE(loaded);
    auto found = loaded->function("attention");
    ASSERT_TRUE(found);
    fn = *found;
  }
  test::AttentionData data(1, 4, 4, /*seed=*/5);
  ASSERT_TRUE(fn->call(inputs(data), outputs(data)));
  test::expectMatchesReference(data);
}

TEST_F(RuntimeTest, MultiThreadedEqualsSingleThreaded) {
  auto run = [&](const char *threads) {
    ScopedEnv env("ATTNC_NUM_THREADS", threads);
    test::AttentionData data(2, 37, 23, /*seed=*/6);
    Status status =
        function(package_, "attention").call(inputs(data), outputs(data));
    EXPECT_TRUE(status) << status.message();
    return std::make_pair(data.o, data.lse);
  };
  auto single = run("1");
  EXPECT_EQ(run(nullptr), single); // one thread per core
  EXPECT_EQ(run("7"), single);
}

//===----------------------------------------------------------------------===//
// Grids and threads
//===----------------------------------------------------------------------===//

TEST_F(RuntimeTest, ResolvesGridWithCeildiv) {
  ScopedEnv env("ATTNC_NUM_THREADS", "1");
  // ceildiv(10, 4) * 2 = 6 blocks, all in one call on one thread.
  auto [blocks, calls] = runBlocks(10, 7);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(blocks, (std::vector<int64_t>{0, 0, 0, 0, 0, 0, -1}));
}

// A manifest whose grid was edited consistently (checksums recomputed) would
// launch blocks the code does not bound, or leave some out: the grid the
// code records for the call's arguments is checked first.
TEST_F(RuntimeTest, RejectsAGridTheCodeDoesNotRecord) {
  pkg::Function &blocks = package_.functions[2];
  ASSERT_EQ(blocks.name, "blocks");
  for (int64_t divisor : {2, 8}) {
    blocks.kernels[0].grid[0][0].divisor = divisor;
    std::vector<int64_t> x(10), out(7, -1), calls(1, 0);
    Status status = function(package_, "blocks")
                        .call({{x.data(), pkg::DType::I64, {10}, {}}},
                              {{out.data(), pkg::DType::I64, {7}, {}},
                               {calls.data(), pkg::DType::I64, {1}, {}}});
    EXPECT_EQ(status.message(),
              "step 0 (kernel 'blocks'): the manifest's grid (" +
                  std::to_string((10 + divisor - 1) / divisor) +
                  ", 2, 1) is not the grid the kernel's code records for "
                  "these arguments, (3, 2, 1)");
    EXPECT_EQ(calls[0], 0) << "nothing ran";
  }
}

TEST_F(RuntimeTest, RejectsCodeWithoutAValidGridRecord) {
  for (auto [entry, message] :
       {std::pair{"test_ungridded", "has no grid record 'test_ungridded_grid'"},
        std::pair{"test_misrecorded",
                  "entry 'test_misrecorded': the grid record is malformed"}}) {
    package_.functions[2].kernels[0].entry = entry;
    auto loaded = load(package_);
    ASSERT_FALSE(loaded) << entry;
    EXPECT_NE(loaded.status().message().find(message), std::string::npos)
        << loaded.status().message();
  }
}

TEST_F(RuntimeTest, EmptyGridMakesNoCall) {
  auto [blocks, calls] = runBlocks(0, 1);
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(blocks[0], -1);
}

TEST_F(RuntimeTest, SplitsGridIntoChunksPerThread) {
  ScopedEnv env("ATTNC_NUM_THREADS", "3");
  // 100 blocks over 3 threads: 4 chunks each, of 8 or 9 contiguous blocks.
  auto [blocks, calls] = runBlocks(200, 100);
  EXPECT_EQ(calls, 12);
  std::set<int64_t> begins(blocks.begin(), blocks.end());
  EXPECT_EQ(begins.size(), 12u);
  for (size_t b = 0; b < blocks.size(); ++b) {
    EXPECT_LE(blocks[b], static_cast<int64_t>(b));
    EXPECT_GE(blocks[b] + 9, static_cast<int64_t>(b) + 1);
    if (b > 0)
      EXPECT_TRUE(blocks[b] == blocks[b - 1] ||
                  blocks[b] == static_cast<int64_t>(b))
          << "block " << b;
  }
}

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

TEST_F(RuntimeTest, RejectsWrongTensorCounts) {
  test::AttentionData data(1, 4, 4, 0);
  std::vector<rt::TensorRef> in = inputs(data), out = outputs(data);
  EXPECT_EQ(callError({in[0], in[1]}, out),
            "function 'attention' takes 3 inputs, got 2");
  EXPECT_EQ(callError(in, {out[0], out[1], out[1]}),
            "function 'attention' takes 2 outputs, got 3");
}

TEST_F(RuntimeTest, RejectsMismatchedTensors) {
  test::AttentionData data(1, 4, 4, 0);
  std::vector<rt::TensorRef> in = inputs(data), out = outputs(data);
  auto withInput = [&](size_t i, auto change) {
    std::vector<rt::TensorRef> changed = in;
    change(changed[i]);
    return callError(changed, out);
  };
  EXPECT_EQ(withInput(1, [](rt::TensorRef &t) { t.dtype = pkg::DType::F16; }),
            "input k has dtype f16, expected f32");
  EXPECT_EQ(withInput(0, [](rt::TensorRef &t) { t.shape.pop_back(); }),
            "input q has rank 3, expected 4");
  EXPECT_EQ(withInput(1, [](rt::TensorRef &t) { t.shape[1] = 3; }),
            "input k dim 1 is 3, expected 2");
  EXPECT_EQ(withInput(0, [](rt::TensorRef &t) { t.shape[0] = -1; }),
            "input q dim 0 has negative extent -1");
  EXPECT_EQ(withInput(0, [](rt::TensorRef &t) { t.shape[2] = 1ll << 31; }),
            "input q dim 2 is 2147483648, above the largest extent "
            "2147483647");
  EXPECT_EQ(withInput(2, [](rt::TensorRef &t) { t.shape[2] = 5; }),
            "symbol M bound to 4 by k dim 2 but v dim 2 is 5");
  EXPECT_EQ(withInput(2, [](rt::TensorRef &t) { t.data = nullptr; }),
            "input v has null data");
  EXPECT_EQ(withInput(0,
                      [](rt::TensorRef &t) {
                        t.strides = {1, 1};
                      }),
            "input q has 2 strides for rank 4");
  EXPECT_EQ(withInput(0,
                      [](rt::TensorRef &t) {
                        t.strides = {1, -1, 1, 1};
                      }),
            "input q dim 1 has negative stride -1");

  // Outputs are written: each element once, in memory of their own.
  auto withOutput = [&](size_t i, auto change) {
    std::vector<rt::TensorRef> changed = out;
    change(changed[i]);
    return callError(in, changed);
  };
  EXPECT_EQ(withOutput(0,
                       [](rt::TensorRef &t) {
                         t.strides = {64, 16, 0, 1};
                       }),
            "output out has strides that address an element more than once "
            "(a stride of 0, or overlapping dims)");
  EXPECT_EQ(withOutput(0,
                       [](rt::TensorRef &t) {
                         t.strides = {64, 16, 2, 1};
                       }),
            "output out has strides that address an element more than once "
            "(a stride of 0, or overlapping dims)");
  EXPECT_EQ(withOutput(1, [&](rt::TensorRef &t) { t.data = out[0].data; }),
            "output lse overlaps output out in memory");
  EXPECT_EQ(withOutput(0, [&](rt::TensorRef &t) { t.data = in[0].data; }),
            "output out overlaps input q in memory");
  // Inputs may share memory and broadcast with a stride of 0.
  std::vector<rt::TensorRef> shared = in;
  shared[2].data = shared[1].data;
  EXPECT_TRUE(function(package_, "attention").call(shared, out, nullptr));

  std::vector<rt::TensorRef> badOut = out;
  badOut[1].shape[2] = 5;
  EXPECT_EQ(callError(in, badOut),
            "symbol N bound to 4 by q dim 2 but lse dim 2 is 5");
  int stream = 0;
  EXPECT_EQ(callError(in, out, &stream),
            "the host device has no streams; pass a null stream");
}

TEST_F(RuntimeTest, NamesBothSidesOfASymbolConflict) {
  // Self-attention: k's sequence is q's symbol N. Nothing is launched, so
  // the data pointers are never read.
  pkg::Function &fn = package_.functions[0];
  fn.inputs[1].shape[2] = fn.inputs[2].shape[2] = pkg::Dim::named("N");
  float dummy = 0;
  auto tensor = [&](std::vector<int64_t> shape) {
    return rt::TensorRef{&dummy, pkg::DType::F32, std::move(shape), {}};
  };
  Status status = function(package_, "attention")
                      .call({tensor({1, 4, 1000, 16}), tensor({1, 2, 999, 16}),
                             tensor({1, 2, 999, 16})},
                            {tensor({1, 4, 1000, 16}), tensor({1, 4, 1000})});
  EXPECT_EQ(status.message(), "symbol N bound to 1000 by q dim 2 but k dim 2 "
                              "is 999");
}

TEST_F(RuntimeTest, RejectsFunctionForOtherTargetsOnly) {
  // Compiled for two GPU targets: nothing is loaded (the blob is no cubin),
  // and a call names the targets.
  pkg::Function &fn = package_.functions[3];
  std::vector<pkg::Kernel> kernels;
  for (const char *target : {"sm_90a", "sm_80"})
    for (pkg::Kernel kernel : fn.kernels) {
      kernel.target = target;
      kernel.blob = "gpu";
      kernels.push_back(kernel);
    }
  fn.kernels = kernels;
  package_.blobs.push_back(pkg::Blob{"gpu", "cubin", {1, 2, 3}});
  test::AttentionData data(1, 4, 4, 0);
  Status status = function(package_, "chain").call(inputs(data), outputs(data));
  EXPECT_EQ(status.message(), "function 'chain' has no kernels for target "
                              "'host' (it has kernels for sm_80, sm_90a)");
  // The other functions still run.
  EXPECT_TRUE(
      function(package_, "attention").call(inputs(data), outputs(data)));
}

//===----------------------------------------------------------------------===//
// Programs
//===----------------------------------------------------------------------===//

TEST_F(RuntimeTest, RunsStepsThroughBuffers) {
  test::AttentionData data(2, 33, 17, /*seed=*/21);
  Status status = function(package_, "chain").call(inputs(data), outputs(data));
  ASSERT_TRUE(status) << status.message();
  test::expectMatchesReference(data, test::chainFunction());
}

TEST_F(RuntimeTest, RunsConcurrentStepsInOrderOnTheHost) {
  // The host has no second stream: a pair runs one step after the other.
  package_.functions.push_back(test::pairFunction());
  test::AttentionData data(2, 33, 17, /*seed=*/24);
  rt::Function fn = function(package_, "pair");
  ASSERT_TRUE(fn.call(inputs(data), outputs(data)));
  test::expectMatchesReference(data, test::pairFunction());
  // A profile marks each step of the pair.
  auto times = fn.profile(inputs(data), outputs(data));
  ASSERT_TRUE(times) << times.status().message();
  EXPECT_EQ(times->size(), 3u);
}

TEST_F(RuntimeTest, SharedSlotsHoldBuffersOfDisjointLifetimes) {
  // chain's t0 and t2 share slot 0: t0 is dead once t1 is written. Had t1
  // (slot 2) shared their memory, a step would overwrite what it reads.
  test::AttentionData data(1, 9, 6, /*seed=*/22);
  ASSERT_TRUE(function(package_, "chain").call(inputs(data), outputs(data)));
  test::expectMatchesReference(data, test::chainFunction());

  // The reader refuses such a plan instead of running it.
  package_.functions[3].buffers[2].slot = 0;
  EXPECT_EQ(pkg::verify(package_).message(),
            "functions[3].buffers[2].slot: buffer \"t1\" shares slot 0 with "
            "buffer \"t0\", and both are live at step 1");
}

TEST_F(RuntimeTest, EmptyTensorsFlowThroughPrograms) {
  // No queries: every buffer holds nothing. No keys: the first attention
  // gives zeros and -inf, which the rest of the chain carries.
  for (auto [n, m] : {std::pair{0, 5}, std::pair{3, 0}}) {
    test::AttentionData data(2, n, m, /*seed=*/23);
    std::vector<rt::TensorRef> in = inputs(data);
    Status status = function(package_, "chain").call(in, outputs(data));
    ASSERT_TRUE(status) << status.message();
    test::expectMatchesReference(data, test::chainFunction());
  }
}

/// Kernel `name` of the test library's entry `entry`, one block.
pkg::Kernel hostKernel(const char *name, const char *entry) {
  pkg::Kernel kernel;
  kernel.name = name;
  kernel.target = "host";
  kernel.blob = "host";
  kernel.entry = entry;
  return kernel;
}

/// n i64 [N] -> ptrs i64 [4]: records where a f32 [N] (slot 0), b f64 [N, 3]
/// (slot 5), c i64 [N] (slot 0) and z f32 [N, 0] (slot 2) live, a and b
/// by the first step into rows [0, 2) of ptrs, c and z by the second into
/// rows [2, 4). a and c, which share a slot, are never live together; b
/// lives through both.
pkg::Function layoutFunction() {
  pkg::Dim n = pkg::Dim::named("N");
  auto buffer = [&](const char *name, pkg::DType dtype,
                    std::vector<pkg::Dim> shape, int64_t slot) {
    return pkg::Buffer{pkg::TensorSig{name, dtype, std::move(shape)}, slot};
  };
  pkg::Function fn;
  fn.name = "layout";
  fn.inputs = {pkg::TensorSig{"n", pkg::DType::I64, {n}}};
  fn.outputs = {pkg::TensorSig{"ptrs", pkg::DType::I64, {pkg::Dim::fixed(4)}}};
  fn.buffers = {buffer("a", pkg::DType::F32, {n}, 0),
                buffer("b", pkg::DType::F64, {n, pkg::Dim::fixed(3)}, 5),
                buffer("c", pkg::DType::I64, {n}, 0),
                buffer("z", pkg::DType::F32, {n, pkg::Dim::fixed(0)}, 2)};
  auto rows = [](const char *name, int64_t begin) {
    return pkg::View{
        pkg::TensorSig{name, pkg::DType::I64, {pkg::Dim::fixed(2)}}, "ptrs",
        begin};
  };
  fn.views = {rows("low", 0), rows("high", 2)};
  // test_pointers records its first arguments, as many as its output has
  // rows; the others only match its ranks.
  fn.steps = {pkg::Step{"pointers", {"low", "a", "b", "a", "b"}},
              pkg::Step{"pointers", {"high", "c", "z", "c", "b"}}};
  fn.kernels = {hostKernel("pointers", "test_pointers")};
  return fn;
}

TEST_F(RuntimeTest, LaysBuffersOutBySlot) {
  package_.functions.push_back(layoutFunction());
  std::vector<int64_t> n(128), ptrs(4, -1);
  Status status = function(package_, "layout")
                      .call({{n.data(), pkg::DType::I64, {128}, {}}},
                            {{ptrs.data(), pkg::DType::I64, {4}, {}}});
  ASSERT_TRUE(status) << status.message();
  // Slot 0 is as large as c (1024 bytes); slot 5 follows; the empty z
  // takes no memory and gets no pointer. By lifetime the layout would be
  // as large (4096 bytes), and slots win a tie.
  EXPECT_NE(ptrs[0], 0);
  EXPECT_EQ(ptrs[0] % 64, 0);
  EXPECT_EQ(ptrs[2], ptrs[0]);
  EXPECT_EQ(ptrs[1] - ptrs[0], 1024);
  EXPECT_EQ(ptrs[3], 0);
}

/// ek f32 [K, 0], es f32 [S, 0] -> blocks i64 [G], calls i64 [1], with a
/// buffer big f32 [S]: step "count" counts its call (test_count), step
/// "huge" has a grid of K x K x K blocks.
pkg::Function midwayFunction() {
  pkg::Dim k = pkg::Dim::named("K"), s = pkg::Dim::named("S");
  pkg::Function fn;
  fn.name = "midway";
  fn.inputs = {pkg::TensorSig{"ek", pkg::DType::F32, {k, pkg::Dim::fixed(0)}},
               pkg::TensorSig{"es", pkg::DType::F32, {s, pkg::Dim::fixed(0)}}};
  fn.outputs = {
      pkg::TensorSig{"blocks", pkg::DType::I64, {pkg::Dim::named("G")}},
      pkg::TensorSig{"calls", pkg::DType::I64, {pkg::Dim::fixed(1)}}};
  fn.buffers = {pkg::Buffer{pkg::TensorSig{"big", pkg::DType::F32, {s}}, 0}};
  fn.steps = {pkg::Step{"count", {"big", "blocks", "calls"}},
              pkg::Step{"huge", {"big", "blocks", "calls"}}};
  pkg::Kernel count = hostKernel("count", "test_count");
  pkg::Kernel huge = count;
  huge.name = "huge";
  huge.grid = {{pkg::GridTerm{1, {"K"}, 1}},
               {pkg::GridTerm{1, {"K"}, 1}},
               {pkg::GridTerm{1, {"K"}, 1}}};
  fn.kernels = {count, huge};
  return fn;
}

TEST_F(RuntimeTest, FailedStepFreesTheWorkspace) {
  package_.functions.push_back(midwayFunction());
  rt::Function fn = function(package_, "midway");
  // 64 MiB of buffer: more than glibc's largest mmap threshold, so each
  // workspace is its own mapping, which mallinfo2 counts.
  const int64_t k = (int64_t(1) << 31) - 1, s = int64_t(1) << 24;
  std::vector<int64_t> blocks(1, -1), calls(1, 0);
  size_t mapped = mallinfo2().hblkhd;
  for (int i = 0; i < 4; ++i) {
    Status status = fn.call({{nullptr, pkg::DType::F32, {k, 0}, {}},
                             {nullptr, pkg::DType::F32, {s, 0}, {}}},
                            {{blocks.data(), pkg::DType::I64, {1}, {}},
                             {calls.data(), pkg::DType::I64, {1}, {}}});
    EXPECT_EQ(status.message(),
              "step 1 (kernel 'huge'): kernel grid has more than 2^63 blocks");
  }
  EXPECT_EQ(calls[0], 4) << "step 0 ran in every call";
  EXPECT_LT(mallinfo2().hblkhd, mapped + (size_t(64) << 20));
}

/// n i64 [N] -> mapped i64 [1], with a buffer f32 [N, `width`]: its step
/// records the bytes glibc has mapped during the call (test_mapped). With
/// `gradientOf`, it is that function's gradient function: it also takes
/// its output, and its own is "dn".
pkg::Function mappedFunction(const std::string &name, int64_t width,
                             std::optional<std::string> gradientOf) {
  pkg::Dim n = pkg::Dim::named("N");
  pkg::TensorSig mapped{"mapped", pkg::DType::I64, {pkg::Dim::fixed(1)}};
  pkg::Function fn;
  fn.name = name;
  fn.inputs = {pkg::TensorSig{"n", pkg::DType::I64, {n}}};
  if (gradientOf)
    fn.inputs.push_back(mapped);
  fn.outputs = {mapped};
  if (gradientOf)
    fn.outputs[0].name = "dn";
  fn.gradientOf = std::move(gradientOf);
  fn.buffers = {pkg::Buffer{
      pkg::TensorSig{"t0", pkg::DType::F32, {n, pkg::Dim::fixed(width)}}, 0}};
  fn.steps = {pkg::Step{"mapped", {fn.outputs[0].name, "t0"}}};
  fn.kernels = {hostKernel("mapped", "test_mapped")};
  return fn;
}

/// The bytes glibc has mapped during a call of `fn` beyond those mapped
/// before it, with N = 4096.
int64_t bytesMappedDuringCall(rt::Function fn) {
  std::vector<int64_t> n(4096), forwardOutput(1, 0), mapped(1, 0);
  std::vector<rt::TensorRef> inputs = {{n.data(), pkg::DType::I64, {4096}, {}}};
  if (fn.signature().inputs.size() == 2)
    inputs.push_back({forwardOutput.data(), pkg::DType::I64, {1}, {}});
  int64_t before = static_cast<int64_t>(mallinfo2().hblkhd);
  Status status = fn.call(inputs, {{mapped.data(), pkg::DType::I64, {1}, {}}});
  EXPECT_TRUE(status) << status.message();
  return mapped[0] - before;
}

TEST_F(RuntimeTest, ForwardReservesItsGradientsWorkspace) {
#ifdef __SANITIZE_ADDRESS__
  GTEST_SKIP() << "ASan's allocator maps memory that mallinfo2 does not count";
#endif
  // The forward needs 16 KiB, its gradient 64 MiB (above glibc's largest
  // mmap threshold, so the workspace is a mapping of its own).
  package_.functions.push_back(mappedFunction("grow", 1, std::nullopt));
  EXPECT_LT(bytesMappedDuringCall(function(package_, "grow")), 1 << 20)
      << "alone, the forward reserves only its own workspace";
  package_.functions.push_back(mappedFunction("grow_bwd", 4096, "grow"));
  for (const char *name : {"grow", "grow_bwd"})
    EXPECT_GE(bytesMappedDuringCall(function(package_, name)), 64 << 20)
        << name << " reserves the larger workspace of the pair";
}

//===----------------------------------------------------------------------===//
// SymbolBindings
//===----------------------------------------------------------------------===//

TEST(RuntimeSymbolBindingsTest, ResolvesAndReportsUnbound) {
  pkg::TensorSig sig{"q",
                     pkg::DType::F32,
                     {pkg::Dim::named("B"), pkg::Dim::fixed(8),
                      pkg::Dim::named("N"), pkg::Dim::named("B")}};
  rt::SymbolBindings bindings;
  auto unresolved = bindings.resolve(sig);
  ASSERT_FALSE(unresolved);
  EXPECT_EQ(unresolved.status().message(),
            "unbound symbols in the shape of q: B, N");

  ASSERT_TRUE(bindings.bind("B", 2, "--shape B=2"));
  EXPECT_EQ(bindings.bind("B", 3, "--shape B=3").message(),
            "symbol B bound to 2 by --shape B=2 but --shape B=3 is 3");
  ASSERT_TRUE(bindings.bind("N", 5, "here"));
  auto shape = bindings.resolve(sig);
  ASSERT_TRUE(shape);
  EXPECT_EQ(*shape, (std::vector<int64_t>{2, 8, 5, 2}));
  EXPECT_EQ(bindings.values(),
            (std::map<std::string, int64_t>{{"B", 2}, {"N", 5}}));
}

} // namespace
