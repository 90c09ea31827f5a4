//===- ThreadPool.h - Persistent workers for host kernel blocks -*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_RUNTIME_THREADPOOL_H
#define ATTNC_RUNTIME_THREADPOOL_H

#include "attnc/Status.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace attnc::rt::detail {

/// A fixed set of threads that split ranges of block ids between them. The
/// thread calling parallelFor takes part, so a pool of size n starts n - 1
/// workers.
class ThreadPool {
public:
  /// Chunks handed out per thread: several, so that a thread that got cheap
  /// blocks (e.g. fully masked rows) picks up more.
  static constexpr int64_t kChunksPerThread = 4;

  static StatusOr<std::unique_ptr<ThreadPool>> create(unsigned size);
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }

  /// Calls body(begin, end) on contiguous chunks that cover [0, total)
  /// exactly once, on all threads, and returns when every chunk is done.
  /// Calls from several threads run one at a time.
  void parallelFor(int64_t total,
                   const std::function<void(int64_t, int64_t)> &body);

private:
  ThreadPool() = default;
  void workerLoop();
  /// Runs chunks of the current job until none is left.
  void runChunks();

  std::vector<std::thread> workers_;
  std::mutex callMutex_; // one parallelFor at a time

  std::mutex mutex_; // guards the fields below
  std::condition_variable wake_;
  std::condition_variable done_;
  uint64_t generation_ = 0; // bumped for each job
  unsigned finished_ = 0;   // workers done with the current job
  bool stopping_ = false;

  // The current job; written under mutex_ before generation_ is bumped.
  const std::function<void(int64_t, int64_t)> *body_ = nullptr;
  int64_t total_ = 0;
  int64_t numChunks_ = 0;
  std::atomic<int64_t> nextChunk_{0};
};

} // namespace attnc::rt::detail

#endif // ATTNC_RUNTIME_THREADPOOL_H
