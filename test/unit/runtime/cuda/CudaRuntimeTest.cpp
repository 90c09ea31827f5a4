//===- CudaRuntimeTest.cpp - Tests of the cuda device (GPU tests) ---------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Loads and runs the kernels of TestKernels.cu on cuda:0; every test skips
// when cuda:0 cannot be opened (no driver, no GPU).
//
//===----------------------------------------------------------------------===//

#include "CudaTestSupport.h"

#include "test/unit/runtime/ExpectReference.h"
#include "test/unit/runtime/TempPath.h"

#include "attnc/runtime/Runtime.h"
#include "attnc_runtime.h"

#include <gtest/gtest.h>

#include <cuda.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <thread>

using namespace attnc;

namespace {

class RuntimeCudaTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto opened = rt::Runtime::open("cuda:0");
    if (!opened)
      GTEST_SKIP() << opened.status().message();
    runtime_ = *opened;
  }
  void TearDown() override {
    for (void *buffer : buffers_)
      EXPECT_TRUE(runtime_->free(buffer));
  }

  static pkg::Package cubinPackage() {
    return test::makeCudaTestPackage("cubin", test::testKernelsCubin());
  }

  StatusOr<rt::Package> load(const pkg::Package &package) const {
    auto bytes = pkg::serialize(package);
    if (!bytes)
      return bytes.status();
    return runtime_->loadFromMemory(bytes->data(), bytes->size());
  }

  /// Loads `package` and looks up `name`; a failure fails the test (gtest
  /// reports the exception).
  rt::Function function(const pkg::Package &package,
                        const std::string &name) const {
    auto loaded = load(package);
    if (!loaded)
      throw std::runtime_error(loaded.status().message());
    auto fn = loaded->function(name);
    if (!fn)
      throw std::runtime_error(fn.status().message());
    return *fn;
  }

  /// The message of loading `package`, which must fail.
  std::string loadError(const pkg::Package &package) const {
    auto loaded = load(package);
    EXPECT_FALSE(loaded);
    return loaded ? "" : loaded.status().message();
  }

  /// Device memory holding a copy of `values`, freed after the test.
  float *upload(const std::vector<float> &values) {
    size_t bytes = values.size() * sizeof(float);
    auto data = runtime_->allocate(bytes);
    if (!data)
      throw std::runtime_error(data.status().message());
    buffers_.push_back(*data);
    Status s =
        runtime_->copy(*data, values.data(), bytes, rt::CopyKind::HostToDevice);
    if (!s)
      throw std::runtime_error(s.message());
    return static_cast<float *>(*data);
  }

  void download(std::vector<float> &values, const float *data) const {
    Status s =
        runtime_->copy(values.data(), data, values.size() * sizeof(float),
                       rt::CopyKind::DeviceToHost);
    if (!s)
      throw std::runtime_error(s.message());
  }

  /// Device copies of `data`'s tensors (q, k, v, o, lse); o and lse start
  /// as NaN, as `data` has them.
  std::vector<rt::TensorRef> deviceTensors(const test::AttentionData &data) {
    return {{upload(data.q), pkg::DType::F32, data.qShape, {}},
            {upload(data.k), pkg::DType::F32, data.kvShape, {}},
            {upload(data.v), pkg::DType::F32, data.kvShape, {}},
            {upload(data.o), pkg::DType::F32, data.oShape, {}},
            {upload(data.lse), pkg::DType::F32, data.lseShape, {}}};
  }

  /// Waits for the device, downloads o and lse from `t` (deviceTensors of
  /// `data`) into `data` and checks them against `reference`'s ops.
  void expectResults(test::AttentionData &data,
                     const std::vector<rt::TensorRef> &t,
                     const pkg::Function &reference) {
    ASSERT_TRUE(runtime_->synchronize());
    download(data.o, static_cast<const float *>(t[3].data));
    download(data.lse, static_cast<const float *>(t[4].data));
    test::expectMatchesReference(data, reference);
  }

  /// Runs `fn` on device copies of `data` and downloads o and lse into it.
  Status runAttention(const rt::Function &fn, test::AttentionData &data) {
    std::vector<rt::TensorRef> t = deviceTensors(data);
    Status s = fn.call({t[0], t[1], t[2]}, {t[3], t[4]});
    if (s)
      s = runtime_->synchronize();
    if (s) {
      download(data.o, static_cast<const float *>(t[3].data));
      download(data.lse, static_cast<const float *>(t[4].data));
    }
    return s;
  }

  /// The message of calling "attention" of `package` with `in` and `out`.
  std::string callError(const pkg::Package &package,
                        const std::vector<rt::TensorRef> &in,
                        const std::vector<rt::TensorRef> &out) {
    Status s = function(package, "attention").call(in, out);
    EXPECT_FALSE(s);
    return s.message();
  }

  std::optional<rt::Runtime> runtime_;
  std::vector<void *> buffers_;
};

//===----------------------------------------------------------------------===//
// Running kernels
//===----------------------------------------------------------------------===//

/// The same kernels from a cubin and from PTX (compiled by the driver's JIT).
class RuntimeCudaBlobTest : public RuntimeCudaTest,
                            public ::testing::WithParamInterface<std::string> {
protected:
  pkg::Package package() const {
    return test::makeCudaTestPackage(GetParam(), GetParam() == "cubin"
                                                     ? test::testKernelsCubin()
                                                     : test::testKernelsPtx());
  }
};

TEST_P(RuntimeCudaBlobTest, MatchesReference) {
  // 300 rows: the last block of 128 threads is partly idle.
  test::AttentionData data(2, 300, 77, /*seed=*/1);
  Status s = runAttention(function(package(), "attention"), data);
  ASSERT_TRUE(s) << s.message();
  test::expectMatchesReference(data);
}

TEST_P(RuntimeCudaBlobTest, LaunchesWithLargeDynamicSharedMemory) {
  // One chunk exactly: y is x reversed only if the kernel got all of it.
  const int64_t n = test::kReverseSharedBytes / sizeof(float);
  std::vector<float> x(n), y(n, std::numeric_limits<float>::quiet_NaN());
  std::iota(x.begin(), x.end(), 0.0f);
  float *dx = upload(x), *dy = upload(y);
  Status s = function(package(), "reverse")
                 .call({{dx, pkg::DType::F32, {n}, {}}},
                       {{dy, pkg::DType::F32, {n}, {}}});
  ASSERT_TRUE(s) << s.message();
  ASSERT_TRUE(runtime_->synchronize());
  download(y, dy);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(y[i], x[n - 1 - i]) << "at " << i;
}

TEST_P(RuntimeCudaBlobTest, RunsStepsThroughBuffers) {
  // Four kernels through three stream-ordered slots; 300 rows leave the
  // last block of each launch partly idle.
  test::AttentionData data(2, 300, 77, /*seed=*/12);
  Status s = runAttention(function(package(), "chain"), data);
  ASSERT_TRUE(s) << s.message();
  test::expectMatchesReference(data, test::chainFunction());
}

INSTANTIATE_TEST_SUITE_P(Blobs, RuntimeCudaBlobTest,
                         ::testing::Values("cubin", "ptx"),
                         [](const auto &info) { return info.param; });

TEST_F(RuntimeCudaTest, HonorsStrides) {
  // q and o stored as [B, N, H, D], passed as [B, H, N, D] views.
  const int64_t b = 2, n = 9, m = 5, h = test::kHeadsQ, d = test::kHeadDim;
  test::AttentionData data(b, n, m, /*seed=*/2);
  auto bhnd = [&](int64_t ib, int64_t ih, int64_t in, int64_t id) {
    return ((ib * h + ih) * n + in) * d + id;
  };
  auto bnhd = [&](int64_t ib, int64_t ih, int64_t in, int64_t id) {
    return ((ib * n + in) * h + ih) * d + id;
  };
  std::vector<float> qBNHD(data.q.size()), oBNHD(data.o.size());
  for (int64_t ib = 0; ib < b; ++ib)
    for (int64_t ih = 0; ih < h; ++ih)
      for (int64_t in = 0; in < n; ++in)
        for (int64_t id = 0; id < d; ++id)
          qBNHD[bnhd(ib, ih, in, id)] = data.q[bhnd(ib, ih, in, id)];
  std::vector<rt::TensorRef> t = deviceTensors(data);
  std::vector<int64_t> strides = {n * h * d, d, h * d, 1};
  t[0].data = upload(qBNHD);
  t[0].strides = strides;
  t[3].data = upload(oBNHD);
  t[3].strides = strides;
  Status s = function(cubinPackage(), "attention")
                 .call({t[0], t[1], t[2]}, {t[3], t[4]});
  ASSERT_TRUE(s) << s.message();
  download(oBNHD, static_cast<const float *>(t[3].data));
  download(data.lse, static_cast<const float *>(t[4].data));
  for (int64_t ib = 0; ib < b; ++ib)
    for (int64_t ih = 0; ih < h; ++ih)
      for (int64_t in = 0; in < n; ++in)
        for (int64_t id = 0; id < d; ++id)
          data.o[bhnd(ib, ih, in, id)] = oBNHD[bnhd(ib, ih, in, id)];
  test::expectMatchesReference(data);
}

TEST_F(RuntimeCudaTest, HandlesEmptyTensors) {
  rt::Function fn = function(cubinPackage(), "attention");
  // No keys: every row is empty (o = 0, lse = -inf).
  test::AttentionData noKeys(1, 3, 0, /*seed=*/3);
  Status s = runAttention(fn, noKeys);
  ASSERT_TRUE(s) << s.message();
  test::expectMatchesReference(noKeys);
  // No queries: an empty grid, nothing is launched.
  test::AttentionData noQueries(2, 0, 4, /*seed=*/4);
  s = runAttention(fn, noQueries);
  EXPECT_TRUE(s) << s.message();
  // Nor for a program, whose buffers are empty too: no workspace.
  s = runAttention(function(cubinPackage(), "chain"), noQueries);
  EXPECT_TRUE(s) << s.message();
}

TEST_F(RuntimeCudaTest, PlacesBuffersInOneWorkspace) {
  rt::Function fn = function(cubinPackage(), "pointers");
  std::vector<int64_t> ptrs(2, 0);
  auto data = runtime_->allocate(ptrs.size() * sizeof(int64_t));
  ASSERT_TRUE(data) << data.status().message();
  buffers_.push_back(*data);
  // The input only binds N = 100: 400 bytes per buffer.
  float *n = upload(std::vector<float>(100));
  Status s = fn.call({{n, pkg::DType::F32, {100}, {}}},
                     {{*data, pkg::DType::I64, {2}, {}}});
  ASSERT_TRUE(s) << s.message();
  ASSERT_TRUE(runtime_->copy(ptrs.data(), *data, ptrs.size() * sizeof(int64_t),
                             rt::CopyKind::DeviceToHost));
  EXPECT_NE(ptrs[0], 0);
  EXPECT_EQ(ptrs[0] % 256, 0) << "the workspace is 256-byte aligned";
  EXPECT_EQ(ptrs[1] - ptrs[0], 512) << "slot 1 at the next 256 bytes";
}

TEST_F(RuntimeCudaTest, ManyProgramCallsInFlight) {
  // 200 calls queued back to back, each allocating and freeing a 3 MiB
  // workspace in stream order on the legacy default stream.
  rt::Function fn = function(cubinPackage(), "chain");
  test::AttentionData data(4, 1024, 16, /*seed=*/13);
  std::vector<rt::TensorRef> t = deviceTensors(data);
  for (int i = 0; i < 200; ++i)
    ASSERT_TRUE(fn.call({t[0], t[1], t[2]}, {t[3], t[4]}));
  expectResults(data, t, test::chainFunction());
}

TEST_F(RuntimeCudaTest, RunsConcurrentStepsOnASecondStream) {
  // The pair's second attention runs on the device's side stream, joined
  // before the scale. 200 calls queued back to back, then calls from two
  // host threads at once on different tensors, all fork onto that one side
  // stream and its two events.
  rt::Function fn = function(cubinPackage(), "pair");
  test::AttentionData data(4, 1024, 16, /*seed=*/14);
  std::vector<rt::TensorRef> t = deviceTensors(data);
  for (int i = 0; i < 200; ++i)
    ASSERT_TRUE(fn.call({t[0], t[1], t[2]}, {t[3], t[4]}));
  expectResults(data, t, test::pairFunction());

  test::AttentionData other(2, 300, 77, /*seed=*/15);
  std::vector<rt::TensorRef> u = deviceTensors(other);
  Status first = Status::ok(), second = Status::ok();
  std::thread a([&] {
    for (int i = 0; i < 50 && first; ++i)
      first = fn.call({t[0], t[1], t[2]}, {t[3], t[4]});
  });
  std::thread b([&] {
    for (int i = 0; i < 50 && second; ++i)
      second = fn.call({u[0], u[1], u[2]}, {u[3], u[4]});
  });
  a.join();
  b.join();
  ASSERT_TRUE(first) << first.message();
  ASSERT_TRUE(second) << second.message();
  expectResults(data, t, test::pairFunction());
  expectResults(other, u, test::pairFunction());
}

TEST_F(RuntimeCudaTest, EncodesTensorMapsInTheDeviceContext) {
  // A tensor map the kernel can use: x's base and strides are 16-byte
  // multiples. Called from a thread where no CUDA context is current (as in
  // attn-run, which has no CUDA code of its own), the runtime still makes
  // it: the driver encodes maps in the current context.
  rt::Function fn = function(cubinPackage(), "tensor_map");
  std::vector<float> x(8 * 16, 1.0f);
  rt::TensorRef in{upload(x), pkg::DType::F32, {8, 16}, {}};
  auto valid = runtime_->allocate(sizeof(int64_t));
  ASSERT_TRUE(valid) << valid.status().message();
  buffers_.push_back(*valid);
  rt::TensorRef out{*valid, pkg::DType::I64, {1}, {}};
  Status s = Status::ok();
  std::thread([&] { s = fn.call({in}, {out}); }).join();
  ASSERT_TRUE(s) << s.message();
  int64_t bits = -1;
  ASSERT_TRUE(
      runtime_->copy(&bits, *valid, sizeof(bits), rt::CopyKind::DeviceToHost));
  EXPECT_EQ(bits, 1);
  // One element past a 16-byte boundary: no map, the bit is 0.
  in.data = static_cast<float *>(in.data) + 1;
  in.shape = {7, 16};
  std::thread([&] { s = fn.call({in}, {out}); }).join();
  ASSERT_TRUE(s) << s.message();
  ASSERT_TRUE(
      runtime_->copy(&bits, *valid, sizeof(bits), rt::CopyKind::DeviceToHost));
  EXPECT_EQ(bits, 0);
}

TEST_F(RuntimeCudaTest, FunctionKeepsItsModuleAlive) {
  std::optional<rt::Function> fn;
  {
    auto loaded = load(cubinPackage());
    ASSERT_TRUE(loaded) << loaded.status().message();
    auto found = loaded->function("attention");
    ASSERT_TRUE(found);
    fn = *found;
  }
  test::AttentionData data(1, 4, 4, /*seed=*/5);
  Status s = runAttention(*fn, data);
  ASSERT_TRUE(s) << s.message();
  test::expectMatchesReference(data);
}

TEST_F(RuntimeCudaTest, TimesAKernelWithEvents) {
  rt::Function fn = function(cubinPackage(), "attention");
  test::AttentionData data(1, 256, 256, /*seed=*/6);
  std::vector<rt::TensorRef> t = deviceTensors(data);
  auto start = runtime_->record();
  ASSERT_TRUE(start) << start.status().message();
  ASSERT_TRUE(fn.call({t[0], t[1], t[2]}, {t[3], t[4]}));
  auto end = runtime_->record();
  ASSERT_TRUE(end) << end.status().message();
  auto elapsed = end->millisecondsSince(*start);
  ASSERT_TRUE(elapsed) << elapsed.status().message();
  EXPECT_GT(*elapsed, 0.0);
}

TEST_F(RuntimeCudaTest, CallsWithDLPackTensors) {
  std::string path = test::uniqueTempPath("cuda-dlpack-test");
  ASSERT_TRUE(pkg::writeFile(cubinPackage(), path));
  attnc_runtime *runtime = nullptr;
  attnc_package *package = nullptr;
  attnc_function *fn = nullptr;
  ASSERT_EQ(attnc_runtime_open("cuda:0", &runtime), nullptr);
  ASSERT_EQ(attnc_package_load(runtime, path.c_str(), &package), nullptr);
  ASSERT_EQ(attnc_package_function(package, "attention", &fn), nullptr);
  std::remove(path.c_str());

  test::AttentionData data(2, 7, 5, /*seed=*/7);
  std::vector<rt::TensorRef> t = deviceTensors(data);
  std::vector<DLTensor> dl(t.size());
  for (size_t i = 0; i < t.size(); ++i)
    dl[i] = DLTensor{t[i].data,
                     {kDLCUDA, 0},
                     static_cast<int32_t>(t[i].shape.size()),
                     {kDLFloat, 32, 1},
                     t[i].shape.data(),
                     nullptr,
                     0};
  const DLTensor *inputs[] = {&dl[0], &dl[1], &dl[2]};
  const DLTensor *outputs[] = {&dl[3], &dl[4]};
  auto callError = [&] {
    attnc_status status =
        attnc_function_call_dlpack(fn, inputs, 3, outputs, 2, nullptr);
    std::string message = status ? attnc_status_message(status) : "";
    attnc_status_free(status);
    return message;
  };
  ASSERT_EQ(callError(), "");
  ASSERT_TRUE(runtime_->synchronize());
  download(data.o, static_cast<const float *>(t[3].data));
  download(data.lse, static_cast<const float *>(t[4].data));
  test::expectMatchesReference(data);

  dl[1].device = {kDLCUDA, 1};
  EXPECT_EQ(callError(), "inputs[1]: dlpack tensor is on cuda:1, but the "
                         "function runs on cuda:0");
  dl[1].device = {kDLCPU, 0};
  EXPECT_EQ(callError(), "inputs[1]: dlpack tensor is on host, but the "
                         "function runs on cuda:0");
  attnc_function_destroy(fn);
  attnc_package_destroy(package);
  attnc_runtime_destroy(runtime);
}

//===----------------------------------------------------------------------===//
// The workspace pool
//===----------------------------------------------------------------------===//

#define ATTNC_TEST_STRINGIFY(x) #x
/// `name` from `library`, by its versioned symbol as cuda.h's macros spell
/// it (cuMemGetInfo -> cuMemGetInfo_v2), as libattnrt looks it up.
#define ATTNC_TEST_CUDA_SYMBOL(library, name)                                  \
  reinterpret_cast<decltype(&::name)>(                                         \
      dlsym(library, ATTNC_TEST_STRINGIFY(name)))

/// What the runtime's API does not say about cuda:0, asked of the driver:
/// whether it has memory pools, and its free memory (read in its primary
/// context, the one the runtime uses).
class DriverProbe {
public:
  DriverProbe() : library_(dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {}

  bool hasMemoryPools() const {
    auto attribute = ATTNC_TEST_CUDA_SYMBOL(library_, cuDeviceGetAttribute);
    std::optional<CUdevice> device = device0();
    int pools = 0;
    return device && attribute &&
           attribute(&pools, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED,
                     *device) == CUDA_SUCCESS &&
           pools;
  }

  std::optional<size_t> freeBytes() const {
    auto retain = ATTNC_TEST_CUDA_SYMBOL(library_, cuDevicePrimaryCtxRetain);
    auto release = ATTNC_TEST_CUDA_SYMBOL(library_, cuDevicePrimaryCtxRelease);
    auto push = ATTNC_TEST_CUDA_SYMBOL(library_, cuCtxPushCurrent);
    auto pop = ATTNC_TEST_CUDA_SYMBOL(library_, cuCtxPopCurrent);
    auto memGetInfo = ATTNC_TEST_CUDA_SYMBOL(library_, cuMemGetInfo);
    std::optional<CUdevice> device = device0();
    CUcontext context = nullptr;
    if (!device || !retain || !release || !push || !pop || !memGetInfo ||
        retain(&context, *device) != CUDA_SUCCESS)
      return std::nullopt;
    size_t free = 0, total = 0;
    bool ok = push(context) == CUDA_SUCCESS;
    ok = ok && memGetInfo(&free, &total) == CUDA_SUCCESS;
    if (ok)
      pop(&context);
    release(*device);
    return ok ? std::optional<size_t>(free) : std::nullopt;
  }

private:
  std::optional<CUdevice> device0() const {
    auto deviceGet = ATTNC_TEST_CUDA_SYMBOL(library_, cuDeviceGet);
    CUdevice device = 0;
    if (!library_ || !deviceGet || deviceGet(&device, 0) != CUDA_SUCCESS)
      return std::nullopt;
    return device;
  }

  void *library_; // never closed: libcuda does not support unloading
};

TEST_F(RuntimeCudaTest, WorkspaceMemoryStaysInThePoolBetweenCalls) {
  DriverProbe driver;
  if (!driver.hasMemoryPools())
    GTEST_SKIP() << "cuda:0 has no memory pools";
  // Buffers a and b of 128 MiB each in two slots: 256 MiB of workspace.
  const int64_t n = int64_t(1) << 25;
  auto input = runtime_->allocate(n * sizeof(float));
  auto output = runtime_->allocate(2 * sizeof(int64_t));
  ASSERT_TRUE(input && output);
  buffers_.insert(buffers_.end(), {*input, *output});
  rt::Function fn = function(cubinPackage(), "pointers");
  auto callAndWait = [&] {
    Status s = fn.call({{*input, pkg::DType::F32, {n}, {}}},
                       {{*output, pkg::DType::I64, {2}, {}}});
    return s ? runtime_->synchronize() : s;
  };
  ASSERT_TRUE(runtime_->synchronize());
  std::optional<size_t> before = driver.freeBytes();
  ASSERT_TRUE(before);
  ASSERT_TRUE(callAndWait());
  std::optional<size_t> after = driver.freeBytes();
  ASSERT_TRUE(after);
  // The driver's default pool (release threshold 0) would have given the
  // workspace back at the synchronization; the device's own pool keeps it.
  const int64_t mib = 1 << 20;
  int64_t kept = static_cast<int64_t>(*before) - static_cast<int64_t>(*after);
  EXPECT_GE(kept, 256 * mib) << "free memory before the call: " << *before;
  // The next call takes it from the pool: nothing more is mapped.
  ASSERT_TRUE(callAndWait());
  std::optional<size_t> again = driver.freeBytes();
  ASSERT_TRUE(again);
  EXPECT_LT(std::abs(static_cast<int64_t>(*after) - int64_t(*again)), 8 * mib);
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST_F(RuntimeCudaTest, RejectsHostPointers) {
  test::AttentionData data(1, 4, 4, /*seed=*/8);
  std::vector<rt::TensorRef> t = deviceTensors(data);
  t[0].data = data.q.data();
  std::string message =
      callError(cubinPackage(), {t[0], t[1], t[2]}, {t[3], t[4]});
  EXPECT_EQ(message.rfind("input q: 0x", 0), 0u) << message;
  EXPECT_NE(message.find(" is not device memory of cuda:0 (nor any CUDA "
                         "allocation; a host pointer?)"),
            std::string::npos)
      << message;
}

TEST_F(RuntimeCudaTest, RejectsTensorsPastTheirAllocation) {
  // k claims 8 MiB but its buffer holds 4 KiB.
  test::AttentionData data(1, 4, 4, /*seed=*/9);
  std::vector<rt::TensorRef> t = deviceTensors(data);
  std::vector<int64_t> bigKV = {1, test::kHeadsKV, 65536, test::kHeadDim};
  t[1].data = upload(std::vector<float>(1024));
  t[1].shape = t[2].shape = bigKV;
  std::string message =
      callError(cubinPackage(), {t[0], t[1], t[2]}, {t[3], t[4]});
  EXPECT_EQ(message.rfind("input k: its 8388608 bytes at 0x", 0), 0u)
      << message;
  EXPECT_NE(message.find(" run past the end of their allocation ("),
            std::string::npos)
      << message;
}

TEST_F(RuntimeCudaTest, LeavesFunctionsForOtherTargetsUnloaded) {
  // Not a cubin at all: loading it would fail.
  pkg::Package package =
      test::makeCudaTestPackage("cubin", {'j', 'u', 'n', 'k'}, "sm_1");
  auto loaded = load(package);
  ASSERT_TRUE(loaded) << loaded.status().message();
  auto fn = loaded->function("attention");
  ASSERT_TRUE(fn);
  test::AttentionData data(1, 4, 4, /*seed=*/10);
  std::vector<rt::TensorRef> t = deviceTensors(data);
  Status s = fn->call({t[0], t[1], t[2]}, {t[3], t[4]});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.message().rfind("function 'attention' has no kernels for target "
                              "'sm_",
                              0),
            0u)
      << s.message();
  EXPECT_NE(s.message().find("' (it has kernels for sm_1)"), std::string::npos)
      << s.message();
}

TEST_F(RuntimeCudaTest, ReportsTheJitLogOfBadPtx) {
  const std::string ptx = ".version 8.0\n.target sm_90a\n.address_size 64\n"
                          ".visible .entry test_attention() {\n"
                          "  not_an_instruction;\n}\n";
  std::string message = loadError(test::makeCudaTestPackage(
      "ptx", std::vector<uint8_t>(ptx.begin(), ptx.end())));
  EXPECT_EQ(message.rfind("<memory>: function 'attention': kernel 'attention': "
                          "cannot load blob 'gpu' (ptx): cuModuleLoadDataEx: ",
                          0),
            0u)
      << message;
  EXPECT_NE(message.find("; jit error log: "), std::string::npos) << message;
}

TEST_F(RuntimeCudaTest, RejectsMalformedBlobs) {
  pkg::Package package = cubinPackage();
  package.blobs[0].kind = "host-so";
  EXPECT_EQ(loadError(package),
            "<memory>: function 'attention': kernel 'attention': cuda kernel "
            "blob 'gpu' has kind 'host-so', expected 'cubin' or 'ptx'");
  std::vector<uint8_t> ptx = test::testKernelsPtx();
  EXPECT_EQ(loadError(test::makeCudaTestPackage("cubin", ptx)),
            "<memory>: function 'attention': kernel 'attention': cubin blob "
            "'gpu' is not an ELF image");
  ptx[10] = 0;
  EXPECT_EQ(loadError(test::makeCudaTestPackage("ptx", ptx)),
            "<memory>: function 'attention': kernel 'attention': ptx blob "
            "'gpu' holds a NUL byte");
}

TEST_F(RuntimeCudaTest, ReportsMissingEntry) {
  pkg::Package package = cubinPackage();
  package.functions[1].kernels[0].entry = "no_such_kernel";
  std::string message = loadError(package);
  EXPECT_EQ(
      message.rfind("<memory>: function 'reverse': kernel 'reverse': blob "
                    "'gpu' has no entry 'no_such_kernel': "
                    "cuModuleGetFunction: ",
                    0),
      0u)
      << message;
}

TEST_F(RuntimeCudaTest, RejectsLaunchConfigsBeyondTheDevice) {
  pkg::Package package = cubinPackage();
  package.functions[0].kernels[0].block[0] = 2048;
  std::string message = loadError(package);
  EXPECT_EQ(message.rfind("<memory>: function 'attention': kernel 'attention': "
                          "entry 'test_attention': block (2048, 1, 1) exceeds "
                          "the limits of cuda:0: at most (",
                          0),
            0u)
      << message;

  package = cubinPackage();
  package.functions[1].kernels[0].dynamicSharedMemoryBytes = 1 << 20;
  message = loadError(package);
  EXPECT_EQ(message.rfind("<memory>: function 'reverse': kernel 'reverse': "
                          "entry 'test_reverse': needs 1048576 bytes of "
                          "dynamic and ",
                          0),
            0u)
      << message;
}

TEST_F(RuntimeCudaTest, RejectsGridsBeyondTheDevice) {
  pkg::Package package = cubinPackage();
  rt::Function tall = function(package, "tall");
  auto run = [&](int64_t n) {
    std::vector<float> x(n);
    for (int64_t i = 0; i < n; ++i)
      x[i] = static_cast<float>(i);
    std::vector<float> y(n, -1);
    float *dx = upload(x), *dy = upload(y);
    Status s = tall.call({{dx, pkg::DType::F32, {n}, {}}},
                         {{dy, pkg::DType::F32, {n}, {}}});
    if (s)
      s = runtime_->synchronize();
    if (s)
      download(y, dy);
    EXPECT_EQ(y, s ? x : std::vector<float>(n, -1));
    return s.message();
  };
  EXPECT_EQ(run(65535), "");
  EXPECT_EQ(run(65536),
            "step 0 (kernel 'tall'): grid (1, 65536, 1) of 'test_tall' exceeds "
            "the limits of cuda:0: at most (2147483647, 65535, 65535)");
}

// A manifest whose grid was edited consistently (checksums recomputed)
// would launch blocks the code does not bound: the grid the cubin records
// is checked first.
TEST_F(RuntimeCudaTest, RejectsAGridTheCodeDoesNotRecord) {
  pkg::Package package = cubinPackage();
  package.functions[0].kernels[0].grid[1] = {pkg::GridTerm{8}};
  test::AttentionData data(1, 4, 4, /*seed=*/11);
  std::vector<rt::TensorRef> t = deviceTensors(data);
  EXPECT_EQ(callError(package, {t[0], t[1], t[2]}, {t[3], t[4]}),
            "step 0 (kernel 'attention'): the manifest's grid (1, 8, 1) is "
            "not the grid the kernel's code records for these arguments, "
            "(1, 4, 1)");
}

} // namespace
