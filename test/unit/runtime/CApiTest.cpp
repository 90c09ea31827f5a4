//===- CApiTest.cpp - Tests of the C API and DLPack import ----------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ExpectReference.h"
#include "TempPath.h"

#include "attnc_runtime.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>

using namespace attnc;

extern "C" int attncTestCHeader(void);

namespace {

/// The message of `status`, which it frees; "" for success.
std::string takeMessage(attnc_status status) {
  std::string message = status ? attnc_status_message(status) : "";
  attnc_status_free(status);
  return message;
}

DLTensor dlTensor(void *data, DLDataType dtype, std::vector<int64_t> &shape,
                  int64_t *strides = nullptr, uint64_t byteOffset = 0) {
  DLTensor tensor;
  tensor.data = data;
  tensor.device = {kDLCPU, 0};
  tensor.ndim = static_cast<int>(shape.size());
  tensor.dtype = dtype;
  tensor.shape = shape.data();
  tensor.strides = strides;
  tensor.byte_offset = byteOffset;
  return tensor;
}

constexpr DLDataType kF32 = {kDLFloat, 32, 1};

class RuntimeCApiTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto library = test::readBytes(ATTNC_TEST_KERNELS);
    ASSERT_TRUE(library) << library.status().message();
    path_ = test::uniqueTempPath("capi-test");
    ASSERT_TRUE(pkg::writeFile(test::makeTestPackage(*library), path_));
    ASSERT_EQ(takeMessage(attnc_runtime_open("host", &runtime_)), "");
    ASSERT_EQ(
        takeMessage(attnc_package_load(runtime_, path_.c_str(), &package_)),
        "");
    ASSERT_EQ(
        takeMessage(attnc_package_function(package_, "attention", &function_)),
        "");
  }
  void TearDown() override {
    attnc_function_destroy(function_);
    attnc_package_destroy(package_);
    attnc_runtime_destroy(runtime_);
    std::remove(path_.c_str());
  }

  /// attnc_tensors over `data`'s contiguous buffers: q, k, v, o, lse.
  std::vector<attnc_tensor> tensors(test::AttentionData &data) {
    auto tensor = [](float *values, const std::vector<int64_t> &shape) {
      return attnc_tensor{values, ATTNC_DTYPE_F32,
                          static_cast<int32_t>(shape.size()), shape.data(),
                          nullptr};
    };
    return {
        tensor(data.q.data(), data.qShape), tensor(data.k.data(), data.kvShape),
        tensor(data.v.data(), data.kvShape), tensor(data.o.data(), data.oShape),
        tensor(data.lse.data(), data.lseShape)};
  }

  /// The error of calling "attention" on `t` (q, k, v, o, lse).
  std::string callError(const std::vector<attnc_tensor> &t) {
    return takeMessage(
        attnc_function_call(function_, t.data(), 3, t.data() + 3, 2, nullptr));
  }

  std::string path_;
  attnc_runtime *runtime_ = nullptr;
  attnc_package *package_ = nullptr;
  attnc_function *function_ = nullptr;
};

TEST(RuntimeCHeaderTest, IsPlainC) { EXPECT_EQ(attncTestCHeader(), 1); }

// The shared library reports the version of the project it was built from.
TEST(RuntimeCApiVersionTest, IsTheProjectVersion) {
  EXPECT_STREQ(attnc_version(), ATTNC_PROJECT_VERSION);
}

TEST_F(RuntimeCApiTest, ListsFunctions) {
  ASSERT_EQ(attnc_package_function_count(package_), 4u);
  EXPECT_STREQ(attnc_package_function_name(package_, 0), "attention");
  EXPECT_STREQ(attnc_package_function_name(package_, 1), "attention_noscale");
  EXPECT_STREQ(attnc_package_function_name(package_, 2), "blocks");
  EXPECT_STREQ(attnc_package_function_name(package_, 3), "chain");
  EXPECT_EQ(attnc_package_function_name(package_, 4), nullptr);
  const char *manifest = attnc_package_manifest_json(package_);
  EXPECT_NE(std::strstr(manifest, "\"attention_noscale\""), nullptr);
  EXPECT_NE(std::strstr(manifest, "\"steps\""), nullptr);
}

TEST_F(RuntimeCApiTest, CallMatchesReference) {
  test::AttentionData data(2, 19, 11, /*seed=*/11);
  std::vector<attnc_tensor> t = tensors(data);
  ASSERT_EQ(callError(t), "");
  test::expectMatchesReference(data);
}

TEST_F(RuntimeCApiTest, CallsAProgram) {
  attnc_function *chain = nullptr;
  ASSERT_EQ(takeMessage(attnc_package_function(package_, "chain", &chain)), "");
  test::AttentionData data(2, 7, 9, /*seed=*/14);
  std::vector<attnc_tensor> t = tensors(data);
  EXPECT_EQ(takeMessage(attnc_function_call(chain, t.data(), 3, t.data() + 3, 2,
                                            nullptr)),
            "");
  attnc_function_destroy(chain);
  test::expectMatchesReference(data, test::chainFunction());
}

// attnc_function_profile runs the program as a call does and times each
// of its steps; a wrong step count is an error that runs nothing.
TEST_F(RuntimeCApiTest, ProfilesEachStep) {
  attnc_function *chain = nullptr;
  ASSERT_EQ(takeMessage(attnc_package_function(package_, "chain", &chain)), "");
  size_t steps = attnc_function_step_count(chain);
  ASSERT_GE(steps, 2u);
  EXPECT_EQ(attnc_function_step_count(nullptr), 0u);
  test::AttentionData data(2, 7, 9, /*seed=*/15);
  std::vector<attnc_tensor> t = tensors(data);
  std::vector<double> millis(steps, -1.0);
  EXPECT_EQ(
      takeMessage(attnc_function_profile(chain, t.data(), 3, t.data() + 3, 2,
                                         nullptr, millis.data(), steps - 1)),
      "attnc_function_profile: function 'chain' has " + std::to_string(steps) +
          " steps, n_steps is " + std::to_string(steps - 1));
  EXPECT_EQ(millis[0], -1.0);
  ASSERT_EQ(
      takeMessage(attnc_function_profile(chain, t.data(), 3, t.data() + 3, 2,
                                         nullptr, millis.data(), steps)),
      "");
  for (double ms : millis)
    EXPECT_GE(ms, 0.0);
  attnc_function_destroy(chain);
  test::expectMatchesReference(data, test::chainFunction());
}

TEST_F(RuntimeCApiTest, FunctionOutlivesRuntimeAndPackage) {
  attnc_runtime_destroy(runtime_);
  attnc_package_destroy(package_);
  runtime_ = nullptr;
  package_ = nullptr;
  test::AttentionData data(1, 5, 7, /*seed=*/12);
  ASSERT_EQ(callError(tensors(data)), "");
  test::expectMatchesReference(data);
}

TEST_F(RuntimeCApiTest, ReportsErrors) {
  attnc_runtime *runtime = nullptr;
  EXPECT_EQ(takeMessage(attnc_runtime_open("tpu", &runtime)),
            "unknown device 'tpu'; expected 'host' or 'cuda:N' (N a device "
            "ordinal)");
  // How opening a cuda device fails depends on the machine (cuda/).
  EXPECT_EQ(takeMessage(attnc_runtime_open("cuda:4096", &runtime))
                .rfind("cannot open device 'cuda:4096': ", 0),
            0u);
  EXPECT_EQ(takeMessage(attnc_runtime_open(nullptr, &runtime)),
            "attnc_runtime_open: device is null");
  EXPECT_EQ(runtime, nullptr);

  attnc_package *package = nullptr;
  std::string missing = path_ + ".missing";
  EXPECT_NE(takeMessage(attnc_package_load(runtime_, missing.c_str(), &package))
                .find(missing),
            std::string::npos);
  EXPECT_EQ(
      takeMessage(attnc_package_load_memory(runtime_, "junk", 4, &package))
          .rfind("<memory>", 0),
      0u);
  EXPECT_EQ(package, nullptr);

  attnc_function *function = nullptr;
  EXPECT_EQ(takeMessage(attnc_package_function(package_, "nope", &function)),
            "no function 'nope' in " + path_ +
                "; available: attention, attention_noscale, blocks, chain");
  EXPECT_EQ(takeMessage(attnc_package_function(package_, nullptr, &function)),
            "attnc_package_function: name is null");
  EXPECT_EQ(function, nullptr);

  EXPECT_STREQ(attnc_status_message(nullptr), "ok");
  attnc_status_free(nullptr);
}

TEST_F(RuntimeCApiTest, ValidatesTensors) {
  test::AttentionData data(1, 4, 4, 0);
  std::vector<attnc_tensor> t = tensors(data);
  EXPECT_EQ(takeMessage(attnc_function_call(function_, t.data(), 2,
                                            t.data() + 3, 2, nullptr)),
            "function 'attention' takes 3 inputs, got 2");
  EXPECT_EQ(takeMessage(attnc_function_call(function_, nullptr, 3, t.data() + 3,
                                            2, nullptr)),
            "inputs is null but its count is 3");
  EXPECT_EQ(takeMessage(attnc_function_call(nullptr, t.data(), 3, t.data() + 3,
                                            2, nullptr)),
            "attnc_function_call: function is null");

  auto withTensor = [&](size_t i, auto change) {
    std::vector<attnc_tensor> changed = t;
    change(changed[i]);
    return callError(changed);
  };
  EXPECT_EQ(withTensor(0, [](attnc_tensor &x) { x.dtype = 42; }),
            "inputs[0] has unknown dtype code 42");
  EXPECT_EQ(withTensor(1, [](attnc_tensor &x) { x.dtype = ATTNC_DTYPE_BF16; }),
            "input k has dtype bf16, expected f32");
  EXPECT_EQ(withTensor(4, [](attnc_tensor &x) { x.rank = -1; }),
            "outputs[1] has negative rank -1");
  // A rank beyond the caller's shape array is refused before the array is
  // read (C gives no other bound on it).
  EXPECT_EQ(withTensor(0, [](attnc_tensor &x) { x.rank = 1000000; }),
            "input q has rank 1000000, expected 4");
  EXPECT_EQ(withTensor(3, [](attnc_tensor &x) { x.rank = 2; }),
            "output out has rank 2, expected 4");
  // Extra tensors are not read: their count is the error.
  std::vector<attnc_tensor> extra = t;
  extra.insert(extra.begin() + 3, attnc_tensor{});
  EXPECT_EQ(takeMessage(attnc_function_call(function_, extra.data(), 4,
                                            extra.data() + 4, 2, nullptr)),
            "function 'attention' takes 3 inputs, got 4");
  EXPECT_EQ(withTensor(3, [](attnc_tensor &x) { x.shape = nullptr; }),
            "outputs[0] has a null shape");
  int64_t badStrides[4] = {64, -16, 16, 1};
  EXPECT_EQ(withTensor(0, [&](attnc_tensor &x) { x.strides = badStrides; }),
            "input q dim 1 has negative stride -16");
}

//===----------------------------------------------------------------------===//
// DLPack
//===----------------------------------------------------------------------===//

TEST(RuntimeDLPackTest, ImportsCompactTensor) {
  std::vector<int64_t> shape = {2, 3};
  float values[6] = {};
  DLTensor dl = dlTensor(values, kF32, shape, nullptr, 8);
  attnc_tensor tensor;
  ASSERT_EQ(takeMessage(attnc_tensor_from_dlpack(&dl, &tensor)), "");
  EXPECT_EQ(tensor.data, values + 2); // byte_offset 8 is two floats
  EXPECT_EQ(tensor.dtype, ATTNC_DTYPE_F32);
  EXPECT_EQ(tensor.rank, 2);
  EXPECT_EQ(tensor.shape, shape.data());
  EXPECT_EQ(tensor.strides, nullptr);
}

TEST(RuntimeDLPackTest, MapsDTypes) {
  struct Case {
    DLDataType dl;
    int32_t dtype;
  };
  const Case cases[] = {
      {{kDLFloat, 16, 1}, ATTNC_DTYPE_F16},
      {{kDLFloat, 32, 1}, ATTNC_DTYPE_F32},
      {{kDLFloat, 64, 1}, ATTNC_DTYPE_F64},
      {{kDLBfloat, 16, 1}, ATTNC_DTYPE_BF16},
      {{kDLInt, 32, 1}, ATTNC_DTYPE_I32},
      {{kDLInt, 64, 1}, ATTNC_DTYPE_I64},
      {{6 /*kDLBool*/, 8, 1}, ATTNC_DTYPE_I1},
  };
  std::vector<int64_t> shape = {4};
  int64_t storage[4] = {};
  for (const Case &c : cases) {
    DLTensor dl = dlTensor(storage, c.dl, shape);
    attnc_tensor tensor;
    ASSERT_EQ(takeMessage(attnc_tensor_from_dlpack(&dl, &tensor)), "");
    EXPECT_EQ(tensor.dtype, c.dtype);
  }
}

TEST(RuntimeDLPackTest, RejectsUnsupportedTensors) {
  std::vector<int64_t> shape = {4};
  double storage[4] = {};
  attnc_tensor tensor;
  for (DLDataType dtype :
       {DLDataType{kDLComplex, 64, 1}, DLDataType{kDLFloat, 32, 4},
        DLDataType{kDLUInt, 32, 1}, DLDataType{kDLFloat, 8, 1}}) {
    DLTensor dl = dlTensor(storage, dtype, shape);
    EXPECT_EQ(takeMessage(attnc_tensor_from_dlpack(&dl, &tensor)),
              "unsupported dlpack dtype (code " + std::to_string(dtype.code) +
                  ", bits " + std::to_string(dtype.bits) + ", lanes " +
                  std::to_string(dtype.lanes) + ")");
  }

  DLTensor onRocm = dlTensor(storage, kF32, shape);
  onRocm.device = {kDLROCM, 0};
  EXPECT_EQ(takeMessage(attnc_tensor_from_dlpack(&onRocm, &tensor)),
            "dlpack tensor is on device type 10, expected cpu (1) or cuda (2)");
  EXPECT_EQ(takeMessage(attnc_tensor_from_dlpack(nullptr, &tensor)),
            "dlpack tensor is null");
  EXPECT_EQ(takeMessage(attnc_tensor_from_dlpack(&onRocm, nullptr)),
            "attnc_tensor_from_dlpack: out is null");
}

TEST_F(RuntimeCApiTest, CallsWithDLPackTensors) {
  // k is passed compact; q as a [B, H, N, D] view of [B, N, H, D] storage
  // that starts 3 floats into its buffer.
  const int64_t b = 2, n = 6, m = 5, h = test::kHeadsQ, d = test::kHeadDim;
  test::AttentionData data(b, n, m, /*seed=*/13);
  const int64_t pad = 3;
  std::vector<float> qBuffer(pad + data.q.size());
  for (int64_t ib = 0; ib < b; ++ib)
    for (int64_t ih = 0; ih < h; ++ih)
      for (int64_t in = 0; in < n; ++in)
        for (int64_t id = 0; id < d; ++id)
          qBuffer[pad + ((ib * n + in) * h + ih) * d + id] =
              data.q[((ib * h + ih) * n + in) * d + id];
  int64_t qStrides[4] = {n * h * d, d, h * d, 1};

  DLTensor q = dlTensor(qBuffer.data(), kF32, data.qShape, qStrides,
                        pad * sizeof(float));
  DLTensor k = dlTensor(data.k.data(), kF32, data.kvShape);
  DLTensor v = dlTensor(data.v.data(), kF32, data.kvShape);
  DLTensor o = dlTensor(data.o.data(), kF32, data.oShape);
  DLTensor lse = dlTensor(data.lse.data(), kF32, data.lseShape);
  const DLTensor *inputs[] = {&q, &k, &v};
  const DLTensor *outputs[] = {&o, &lse};
  ASSERT_EQ(takeMessage(attnc_function_call_dlpack(function_, inputs, 3,
                                                   outputs, 2, nullptr)),
            "");
  test::expectMatchesReference(data);

  k.device = {kDLCUDA, 0};
  EXPECT_EQ(takeMessage(attnc_function_call_dlpack(function_, inputs, 3,
                                                   outputs, 2, nullptr)),
            "inputs[1]: dlpack tensor is on cuda:0, but the function runs on "
            "host");
}

} // namespace
