//===- Progress.cpp - How far the fp64 reference has come -----------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "lib/reference/Progress.h"

#include <algorithm>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace attnc::ref {

static thread_local Progress *threadProgress = nullptr;

ProgressScope::ProgressScope(Progress &progress) : previous_(threadProgress) {
  threadProgress = &progress;
}

ProgressScope::~ProgressScope() { threadProgress = previous_; }

Progress *currentProgress() { return threadProgress; }

Status parallelFor(int64_t count, const std::function<Status(int64_t)> &task) {
  std::atomic<int64_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex errorMutex;
  Status firstError = Status::ok();
  // The caller's, read here: the workers are other threads.
  Progress *progress = currentProgress();
  if (progress)
    progress->total += count;
  auto worker = [&] {
    for (int64_t index; !failed && (index = next++) < count;) {
      Status status = task(index);
      if (progress)
        ++progress->done;
      if (!status) {
        std::lock_guard<std::mutex> lock(errorMutex);
        if (!failed.exchange(true))
          firstError = status;
      }
    }
  };
  int64_t numThreads = std::clamp<int64_t>(std::thread::hardware_concurrency(),
                                           1, std::max<int64_t>(count, 1));
  std::vector<std::thread> threads;
  try {
    for (int64_t t = 1; t < numThreads; ++t)
      threads.emplace_back(worker);
  } catch (const std::system_error &) {
    // Fewer threads than hoped for; the ones running and this one finish
    // the work.
  }
  worker();
  for (std::thread &thread : threads)
    thread.join();
  return firstError;
}

} // namespace attnc::ref
