//===- DeviceMemoryTest.cpp - Memory, timing and opening devices ----------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The memory, synchronization and timing API on every device: "host" always,
// "cuda:0" where one opens (skipped elsewhere). Also how opening a cuda
// device fails on machines without one.
//
//===----------------------------------------------------------------------===//

#include "attnc/runtime/Runtime.h"
#include "attnc_runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <dlfcn.h>
#include <numeric>
#include <optional>

using namespace attnc;

namespace {

/// The message of `status`, which it frees; "" for success.
std::string takeMessage(attnc_status status) {
  std::string message = status ? attnc_status_message(status) : "";
  attnc_status_free(status);
  return message;
}

class RuntimeDeviceMemoryTest : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    auto opened = rt::Runtime::open(GetParam());
    if (!opened)
      GTEST_SKIP() << opened.status().message();
    runtime_ = *opened;
  }

  std::optional<rt::Runtime> runtime_;
};

TEST_P(RuntimeDeviceMemoryTest, CopiesAndFills) {
  const size_t size = 1000;
  std::vector<uint8_t> pattern(size), back(size);
  std::iota(pattern.begin(), pattern.end(), 0);
  auto first = runtime_->allocate(size), second = runtime_->allocate(size);
  ASSERT_TRUE(first) << first.status().message();
  ASSERT_TRUE(second) << second.status().message();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(*first) % 64, 0u);

  ASSERT_TRUE(
      runtime_->copy(*first, pattern.data(), size, rt::CopyKind::HostToDevice));
  ASSERT_TRUE(
      runtime_->copy(*second, *first, size, rt::CopyKind::DeviceToDevice));
  ASSERT_TRUE(runtime_->fill(static_cast<uint8_t *>(*second) + 10, 0xAB, 5));
  ASSERT_TRUE(
      runtime_->copy(back.data(), *second, size, rt::CopyKind::DeviceToHost));
  ASSERT_TRUE(runtime_->synchronize());
  std::fill(pattern.begin() + 10, pattern.begin() + 15, 0xAB);
  EXPECT_EQ(back, pattern);

  EXPECT_TRUE(runtime_->free(*first));
  EXPECT_TRUE(runtime_->free(*second));
}

TEST_P(RuntimeDeviceMemoryTest, HandlesEmptyAndNull) {
  auto empty = runtime_->allocate(0);
  ASSERT_TRUE(empty);
  EXPECT_EQ(*empty, nullptr);
  EXPECT_TRUE(runtime_->free(nullptr));
  EXPECT_TRUE(runtime_->copy(nullptr, nullptr, 0, rt::CopyKind::HostToDevice));
  EXPECT_TRUE(runtime_->fill(nullptr, 0, 0));
  int x = 0;
  EXPECT_EQ(
      runtime_->copy(&x, nullptr, 4, rt::CopyKind::DeviceToHost).message(),
      "copy of 4 bytes from a null pointer");
  EXPECT_EQ(
      runtime_->copy(nullptr, &x, 4, rt::CopyKind::HostToDevice).message(),
      "copy of 4 bytes to a null pointer");
  EXPECT_EQ(runtime_->fill(nullptr, 0, 4).message(),
            "fill of 4 bytes at a null pointer");
}

TEST_P(RuntimeDeviceMemoryTest, CopiesAsynchronouslyThroughHostMemory) {
  const size_t size = 1000;
  auto host = runtime_->allocateHost(size), back = runtime_->allocateHost(size);
  auto device = runtime_->allocate(size);
  ASSERT_TRUE(host) << host.status().message();
  ASSERT_TRUE(back) << back.status().message();
  ASSERT_TRUE(device) << device.status().message();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(*host) % 64, 0u);
  auto *in = static_cast<uint8_t *>(*host);
  std::iota(in, in + size, 0);

  ASSERT_TRUE(
      runtime_->copyAsync(*device, in, size, rt::CopyKind::HostToDevice));
  ASSERT_TRUE(
      runtime_->copyAsync(*back, *device, size, rt::CopyKind::DeviceToHost));
  auto copied = runtime_->record();
  ASSERT_TRUE(copied) << copied.status().message();
  ASSERT_TRUE(copied->wait());
  EXPECT_TRUE(std::equal(in, in + size, static_cast<uint8_t *>(*back)));

  EXPECT_TRUE(
      runtime_->copyAsync(nullptr, nullptr, 0, rt::CopyKind::DeviceToHost));
  EXPECT_EQ(runtime_->copyAsync(*back, nullptr, 4, rt::CopyKind::DeviceToHost)
                .message(),
            "copy of 4 bytes from a null pointer");
  auto empty = runtime_->allocateHost(0);
  ASSERT_TRUE(empty);
  EXPECT_EQ(*empty, nullptr);
  EXPECT_TRUE(runtime_->freeHost(nullptr));
  EXPECT_TRUE(runtime_->freeHost(*host));
  EXPECT_TRUE(runtime_->freeHost(*back));
  EXPECT_TRUE(runtime_->free(*device));
}

TEST_P(RuntimeDeviceMemoryTest, TimesWithEvents) {
  auto start = runtime_->record();
  ASSERT_TRUE(start) << start.status().message();
  auto end = runtime_->record();
  ASSERT_TRUE(end) << end.status().message();
  auto elapsed = end->millisecondsSince(*start);
  ASSERT_TRUE(elapsed) << elapsed.status().message();
  EXPECT_GE(*elapsed, 0.0);
  EXPECT_LT(*elapsed, 1000.0);
}

TEST_P(RuntimeDeviceMemoryTest, WorksThroughTheCApi) {
  attnc_runtime *runtime = nullptr;
  ASSERT_EQ(takeMessage(attnc_runtime_open(GetParam().c_str(), &runtime)), "");
  const uint32_t values[4] = {1, 2, 3, 4};
  uint32_t back[4] = {};
  void *data = nullptr;
  ASSERT_EQ(takeMessage(attnc_runtime_allocate(runtime, sizeof(values), &data)),
            "");
  EXPECT_EQ(
      takeMessage(attnc_runtime_copy(runtime, data, values, sizeof(values),
                                     ATTNC_COPY_HOST_TO_DEVICE)),
      "");
  EXPECT_EQ(takeMessage(attnc_runtime_fill(runtime, data, 0, 4)), "");
  EXPECT_EQ(takeMessage(attnc_runtime_copy(runtime, back, data, sizeof(back),
                                           ATTNC_COPY_DEVICE_TO_HOST)),
            "");
  EXPECT_EQ(takeMessage(attnc_runtime_synchronize(runtime, nullptr)), "");
  EXPECT_EQ(back[0], 0u);
  EXPECT_EQ(back[3], 4u);
  EXPECT_EQ(takeMessage(attnc_runtime_copy(runtime, back, data, 4, 3)),
            "attnc_runtime_copy: unknown copy kind 3");

  // The same round trip queued, through host memory of the runtime's.
  void *host = nullptr;
  ASSERT_EQ(takeMessage(attnc_runtime_allocate_host(runtime, 4, &host)), "");
  *static_cast<uint32_t *>(host) = 7;
  // Each copy's host side is reused only once an event after it happened.
  auto queue = [&](void *dst, const void *src, int32_t kind) {
    attnc_event *copied = nullptr;
    EXPECT_EQ(takeMessage(attnc_runtime_copy_async(runtime, dst, src, 4, kind,
                                                   nullptr)),
              "");
    ASSERT_EQ(takeMessage(attnc_event_record(runtime, nullptr, &copied)), "");
    EXPECT_EQ(takeMessage(attnc_event_wait(copied)), "");
    attnc_event_destroy(copied);
  };
  queue(data, host, ATTNC_COPY_HOST_TO_DEVICE);
  *static_cast<uint32_t *>(host) = 0;
  queue(host, data, ATTNC_COPY_DEVICE_TO_HOST);
  EXPECT_EQ(*static_cast<uint32_t *>(host), 7u);
  EXPECT_EQ(takeMessage(
                attnc_runtime_copy_async(runtime, host, data, 4, -1, nullptr)),
            "attnc_runtime_copy_async: unknown copy kind -1");
  EXPECT_EQ(takeMessage(attnc_event_wait(nullptr)),
            "attnc_event_wait: event is null");
  EXPECT_EQ(takeMessage(attnc_runtime_free_host(runtime, host)), "");
  EXPECT_EQ(takeMessage(attnc_runtime_free(runtime, data)), "");

  attnc_event *start = nullptr, *end = nullptr;
  ASSERT_EQ(takeMessage(attnc_event_record(runtime, nullptr, &start)), "");
  ASSERT_EQ(takeMessage(attnc_event_record(runtime, nullptr, &end)), "");
  double elapsed = -1;
  EXPECT_EQ(takeMessage(attnc_event_elapsed_ms(start, end, &elapsed)), "");
  EXPECT_GE(elapsed, 0.0);
  EXPECT_EQ(takeMessage(attnc_event_elapsed_ms(start, nullptr, &elapsed)),
            "attnc_event_elapsed_ms: end is null");
  attnc_event_destroy(start);
  attnc_event_destroy(end);

  EXPECT_EQ(takeMessage(attnc_runtime_allocate(nullptr, 4, &data)),
            "attnc_runtime_allocate: runtime is null");
  attnc_runtime_destroy(runtime);
}

INSTANTIATE_TEST_SUITE_P(
    Devices, RuntimeDeviceMemoryTest, ::testing::Values("host", "cuda:0"),
    [](const auto &info) {
      std::string name = info.param;
      name.erase(std::remove(name.begin(), name.end(), ':'), name.end());
      return name;
    });

TEST(RuntimeHostMemoryTest, HasNoStreams) {
  auto runtime = rt::Runtime::open("host");
  ASSERT_TRUE(runtime);
  int stream = 0;
  const std::string noStreams =
      "the host device has no streams; pass a null stream";
  EXPECT_EQ(runtime->synchronize(&stream).message(), noStreams);
  auto event = runtime->record(&stream);
  ASSERT_FALSE(event);
  EXPECT_EQ(event.status().message(), noStreams);
  int x = 0, y = 0;
  EXPECT_EQ(runtime->copyAsync(&x, &y, 4, rt::CopyKind::HostToDevice, &stream)
                .message(),
            noStreams);
}

//===----------------------------------------------------------------------===//
// Opening cuda devices
//===----------------------------------------------------------------------===//

/// dlerror's text for libcuda.so.1 when it cannot be loaded, else nullopt.
std::optional<std::string> missingDriverError() {
  void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!driver)
    return std::string(dlerror());
  dlclose(driver);
  return std::nullopt;
}

TEST(RuntimeCudaOpenTest, ReportsMissingDriver) {
  std::optional<std::string> error = missingDriverError();
  if (ATTNC_RT_HAVE_CUDA && !error)
    GTEST_SKIP() << "libcuda.so.1 is present";
  auto runtime = rt::Runtime::open("cuda:0");
  ASSERT_FALSE(runtime);
  EXPECT_EQ(runtime.status().message(),
            ATTNC_RT_HAVE_CUDA
                ? "cannot open device 'cuda:0': the CUDA driver "
                  "(libcuda.so.1) is not available: " +
                      *error
                : "cannot open device 'cuda:0': this runtime was built "
                  "without CUDA headers (cuda.h)");
}

TEST(RuntimeCudaOpenTest, RejectsOrdinalsBeyondTheDevices) {
  for (const char *device : {"cuda:4096", "cuda:99999999999999999999"}) {
    auto runtime = rt::Runtime::open(device);
    ASSERT_FALSE(runtime) << device;
    const std::string &message = runtime.status().message();
    EXPECT_EQ(
        message.rfind("cannot open device '" + std::string(device) + "': ", 0),
        0u)
        << message;
    // With a driver, the error says which devices there are.
    if (ATTNC_RT_HAVE_CUDA && !missingDriverError() &&
        message.find("cuInit") == std::string::npos)
      EXPECT_NE(message.find("CUDA device"), std::string::npos) << message;
  }
}

} // namespace
