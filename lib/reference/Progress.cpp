//===- Progress.cpp - How far the fp64 reference has come -----------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "lib/reference/Progress.h"

namespace attnc::ref {

static thread_local Progress *threadProgress = nullptr;

ProgressScope::ProgressScope(Progress &progress) : previous_(threadProgress) {
  threadProgress = &progress;
}

ProgressScope::~ProgressScope() { threadProgress = previous_; }

Progress *currentProgress() { return threadProgress; }

} // namespace attnc::ref
