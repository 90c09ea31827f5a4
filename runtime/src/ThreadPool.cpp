//===- ThreadPool.cpp - Persistent workers for host kernel blocks ---------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ThreadPool.h"

#include <algorithm>
#include <system_error>

using namespace attnc;
using namespace attnc::rt::detail;

StatusOr<std::unique_ptr<ThreadPool>> ThreadPool::create(unsigned size) {
  if (size == 0)
    return Status::error("a thread pool needs at least one thread");
  std::unique_ptr<ThreadPool> pool(new ThreadPool());
  try {
    pool->workers_.reserve(size - 1);
    for (unsigned i = 1; i < size; ++i)
      pool->workers_.emplace_back([p = pool.get()] { p->workerLoop(); });
  } catch (const std::system_error &e) {
    // The destructor joins the workers started so far.
    return Status::error("cannot start " + std::to_string(size) +
                         " host threads: " + e.what());
  }
  return pool;
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread &worker : workers_)
    worker.join();
}

void ThreadPool::runChunks() {
  // Chunk i covers [i * base + min(i, rem), ...): sizes differ by at most one
  // and nothing overflows for any total.
  int64_t base = total_ / numChunks_, rem = total_ % numChunks_;
  auto chunkBegin = [&](int64_t i) { return i * base + std::min(i, rem); };
  for (int64_t i = nextChunk_.fetch_add(1); i < numChunks_;
       i = nextChunk_.fetch_add(1))
    (*body_)(chunkBegin(i), chunkBegin(i + 1));
}

void ThreadPool::workerLoop() {
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
    if (stopping_)
      return;
    seen = generation_;
    lock.unlock();
    runChunks();
    lock.lock();
    if (++finished_ == workers_.size())
      done_.notify_one();
  }
}

void ThreadPool::parallelFor(
    int64_t total, const std::function<void(int64_t, int64_t)> &body) {
  if (total <= 0)
    return;
  int64_t numChunks = std::min<int64_t>(total, size() * kChunksPerThread);
  if (workers_.empty() || numChunks == 1) {
    body(0, total);
    return;
  }
  std::lock_guard<std::mutex> call(callMutex_);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    body_ = &body;
    total_ = total;
    numChunks_ = numChunks;
    nextChunk_.store(0);
    finished_ = 0;
    ++generation_;
  }
  wake_.notify_all();
  runChunks();
  // Every worker must be done with this job before `body` goes out of scope.
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return finished_ == workers_.size(); });
}
