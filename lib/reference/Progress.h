//===- Progress.h - How far the fp64 reference has come ---------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The reference of a large attention runs for minutes. A caller that wants
// to say how far it is (attn-run --check) installs a Progress for its
// thread with a ProgressScope; every parallel loop of the reference that
// thread starts adds its tasks to `total` and each finished task to `done`,
// which another thread may read at any time. Nothing changes without a
// scope.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_LIB_REFERENCE_PROGRESS_H
#define ATTNC_LIB_REFERENCE_PROGRESS_H

#include "attnc/Status.h"

#include <atomic>
#include <cstdint>
#include <functional>

namespace attnc::ref {

struct Progress {
  std::atomic<int64_t> done{0};
  std::atomic<int64_t> total{0};
};

/// Makes `progress` the calling thread's until the scope ends (scopes nest:
/// the previous one comes back).
class ProgressScope {
public:
  explicit ProgressScope(Progress &progress);
  ~ProgressScope();
  ProgressScope(const ProgressScope &) = delete;
  ProgressScope &operator=(const ProgressScope &) = delete;

private:
  Progress *previous_;
};

/// The calling thread's Progress, or null.
Progress *currentProgress();

/// Runs task(0), ..., task(count - 1) on up to hardware_concurrency
/// threads, counting them into the calling thread's Progress; returns the
/// first error, after which the remaining tasks are skipped.
Status parallelFor(int64_t count, const std::function<Status(int64_t)> &task);

} // namespace attnc::ref

#endif // ATTNC_LIB_REFERENCE_PROGRESS_H
