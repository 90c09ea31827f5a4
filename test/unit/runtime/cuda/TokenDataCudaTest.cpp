//===- TokenDataCudaTest.cpp - The token loader on cuda:0 -----------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Batches loaded on cuda:0 must equal the host's, on the legacy default
// stream and on a non-blocking stream of the caller's, which only the
// loader's events order after the copies. Skipped where cuda:0 cannot be
// opened.
//
//===----------------------------------------------------------------------===//

#include "../TokenFiles.h"

#include "attnc/runtime/TokenData.h"

#include <cuda.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <optional>

using namespace attnc;
using namespace attnc::test;

namespace {

#define ATTNC_TEST_STRINGIFY(x) #x
/// `name` from libcuda by its versioned symbol, as cuda.h's macros spell it.
#define ATTNC_TEST_CUDA_SYMBOL(library, name)                                  \
  reinterpret_cast<decltype(&::name)>(                                         \
      dlsym(library, ATTNC_TEST_STRINGIFY(name)))

/// A non-blocking stream in cuda:0's primary context (the runtime's), and
/// device-to-host copies on it.
class CallerStream {
public:
  CallerStream() {
    void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library)
      return;
    auto deviceGet = ATTNC_TEST_CUDA_SYMBOL(library, cuDeviceGet);
    auto retain = ATTNC_TEST_CUDA_SYMBOL(library, cuDevicePrimaryCtxRetain);
    push_ = ATTNC_TEST_CUDA_SYMBOL(library, cuCtxPushCurrent);
    pop_ = ATTNC_TEST_CUDA_SYMBOL(library, cuCtxPopCurrent);
    create_ = ATTNC_TEST_CUDA_SYMBOL(library, cuStreamCreate);
    destroy_ = ATTNC_TEST_CUDA_SYMBOL(library, cuStreamDestroy);
    copy_ = ATTNC_TEST_CUDA_SYMBOL(library, cuMemcpyDtoHAsync);
    synchronize_ = ATTNC_TEST_CUDA_SYMBOL(library, cuStreamSynchronize);
    CUdevice device = 0;
    if (!deviceGet || !retain || !push_ || !pop_ || !create_ || !destroy_ ||
        !copy_ || !synchronize_ || deviceGet(&device, 0) != CUDA_SUCCESS ||
        retain(&context_, device) != CUDA_SUCCESS)
      return;
    Current current(*this);
    if (create_(&stream_, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS)
      stream_ = nullptr;
  }
  ~CallerStream() {
    if (stream_) {
      Current current(*this);
      destroy_(stream_);
    }
  }

  CUstream get() const { return stream_; }

  /// `bytes` bytes at `src` on the device, copied in the stream's order.
  std::vector<int32_t> read(const void *src, size_t count) const {
    std::vector<int32_t> out(count);
    Current current(*this);
    EXPECT_EQ(copy_(out.data(),
                    static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(src)),
                    count * sizeof(int32_t), stream_),
              CUDA_SUCCESS);
    EXPECT_EQ(synchronize_(stream_), CUDA_SUCCESS);
    return out;
  }

private:
  struct Current {
    explicit Current(const CallerStream &owner) : owner(owner) {
      owner.push_(owner.context_);
    }
    ~Current() {
      CUcontext popped = nullptr;
      owner.pop_(&popped);
    }
    const CallerStream &owner;
  };

  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
  decltype(&::cuCtxPushCurrent) push_ = nullptr;
  decltype(&::cuCtxPopCurrent) pop_ = nullptr;
  decltype(&::cuStreamCreate) create_ = nullptr;
  decltype(&::cuStreamDestroy) destroy_ = nullptr;
  decltype(&::cuMemcpyDtoHAsync) copy_ = nullptr;
  decltype(&::cuStreamSynchronize) synchronize_ = nullptr;
};

class TokenDataCuda : public ::testing::Test {
protected:
  void SetUp() override {
    auto cuda = rt::Runtime::open("cuda:0");
    if (!cuda)
      GTEST_SKIP() << cuda.status().message();
    auto host = rt::Runtime::open("host");
    ASSERT_TRUE(host) << host.status().message();
    cuda_ = *cuda;
    host_ = *host;
    std::vector<uint32_t> tokens(20000);
    for (size_t i = 0; i < tokens.size(); ++i)
      tokens[i] = static_cast<uint32_t>(i * 2654435761u % 50257);
    path_ = writeTokenFile("cuda", tokens, 4, 50257);
    options_.batch = 8;
    options_.sequence = 64; // 312 windows, 39 batches an epoch
    options_.shuffle = true;
    options_.seed = 99;
    options_.position = 5;
  }

  std::unique_ptr<rt::TokenLoader> loader(const rt::Runtime &runtime) {
    auto file = rt::TokenFile::open(path_);
    EXPECT_TRUE(file) << file.status().message();
    if (!file)
      return nullptr;
    auto made = rt::TokenLoader::create(runtime, *file, options_);
    EXPECT_TRUE(made) << made.status().message();
    return made ? std::move(*made) : nullptr;
  }

  /// Runs `batches` batches on cuda:0, reading each with `read`, against
  /// the host's.
  template <typename Read>
  void compare(int batches, void *stream, const Read &read) {
    auto onHost = loader(*host_), onGpu = loader(*cuda_);
    ASSERT_TRUE(onHost && onGpu);
    size_t elements = static_cast<size_t>(options_.batch * options_.sequence);
    for (int b = 0; b < batches; ++b) {
      auto expected = onHost->next();
      auto got = onGpu->next(stream);
      ASSERT_TRUE(expected) << expected.status().message();
      ASSERT_TRUE(got) << got.status().message();
      EXPECT_EQ(got->ids.shape, expected->ids.shape);
      const auto *ids = static_cast<const int32_t *>(expected->ids.data);
      const auto *labels = static_cast<const int32_t *>(expected->labels.data);
      EXPECT_EQ(read(got->ids.data, elements),
                std::vector<int32_t>(ids, ids + elements))
          << "batch " << b;
      EXPECT_EQ(read(got->labels.data, elements),
                std::vector<int32_t>(labels, labels + elements))
          << "batch " << b;
    }
    EXPECT_EQ(onGpu->position(), onHost->position());
  }

  std::optional<rt::Runtime> cuda_, host_;
  std::string path_;
  rt::LoaderOptions options_;
};

TEST_F(TokenDataCuda, BatchesOnTheDefaultStreamMatchTheHosts) {
  compare(100, nullptr, [&](const void *src, size_t count) {
    std::vector<int32_t> out(count);
    EXPECT_TRUE(cuda_->copy(out.data(), src, count * sizeof(int32_t),
                            rt::CopyKind::DeviceToHost));
    return out;
  });
}

TEST_F(TokenDataCuda, BatchesOnACallersStreamMatchTheHosts) {
  CallerStream stream;
  ASSERT_NE(stream.get(), nullptr) << "cannot create a stream on cuda:0";
  compare(100, stream.get(), [&](const void *src, size_t count) {
    return stream.read(src, count);
  });
}

TEST_F(TokenDataCuda, StopsCleanlyWithCopiesInFlight) {
  CallerStream stream;
  ASSERT_NE(stream.get(), nullptr) << "cannot create a stream on cuda:0";
  for (int calls : {0, 1, 5}) {
    auto onGpu = loader(*cuda_);
    ASSERT_TRUE(onGpu);
    for (int i = 0; i < calls; ++i)
      EXPECT_TRUE(onGpu->next(stream.get()));
  }
}

} // namespace
