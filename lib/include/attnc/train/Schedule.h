//===- Schedule.h - The learning rate of each step --------------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The per-step scalars of an AdamW training loop, computed on the host in
// double as PyTorch computes them in Python floats, so that attn-train and
// a PyTorch twin feed the step function the same numbers.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_TRAIN_SCHEDULE_H
#define ATTNC_TRAIN_SCHEDULE_H

#include "attnc/Status.h"

#include <cstdint>

namespace attnc::train {

/// Linear warmup, then cosine decay, as nanoGPT's GPT-2 reproduction
/// (build-nanogpt's get_lr), for 0-based steps s:
///   s < warmupSteps:                 peak * (s + 1) / warmupSteps
///   warmupSteps <= s < totalSteps:   min + 0.5 * (1 + cos(pi * r)) *
///                                    (peak - min),
///                                    r = (s - warmupSteps) /
///                                        (totalSteps - warmupSteps)
///   s >= totalSteps:                 min
/// So step 0 trains at peak / warmupSteps (not 0), step warmupSteps at
/// peak, and totalSteps onwards at min.
struct LrSchedule {
  double peak = 0;
  double min = 0;
  int64_t warmupSteps = 0;
  int64_t totalSteps = 0;

  /// Checks 0 <= min <= peak (both finite) and 0 <= warmupSteps <=
  /// totalSteps.
  Status verify() const;
  /// The learning rate of step `step` (>= 0) of a verified schedule.
  double at(int64_t step) const;
};

} // namespace attnc::train

#endif // ATTNC_TRAIN_SCHEDULE_H
