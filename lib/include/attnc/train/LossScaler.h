//===- LossScaler.h - Dynamic loss scaling ----------------------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// fp16 gradients underflow unless the loss is scaled up before the backward
// pass; the scale must then come down whenever a gradient overflows. This
// is torch.amp.GradScaler's rule, step for step and bit for bit
// (at::_amp_update_scale_): the scale is an f32, the growth tracker counts
// the finite steps since the last change, and
//   non-finite gradients: scale = f32(scale * backoff), tracker = 0, and
//                         the optimizer step is skipped;
//   finite gradients:     tracker + 1; on reaching the interval, scale =
//                         f32(scale * growth) unless that is inf (then the
//                         scale stays), and tracker = 0.
// The products are taken in double, the factors being doubles, and then
// rounded to f32, as the kernel does.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_TRAIN_LOSSSCALER_H
#define ATTNC_TRAIN_LOSSSCALER_H

#include "attnc/Status.h"

#include <cstdint>

namespace attnc::train {

/// GradScaler's defaults.
struct LossScalerOptions {
  double initScale = 65536.0; // 2^16, rounded to f32
  double growthFactor = 2.0;
  double backoffFactor = 0.5;
  int64_t growthInterval = 2000;
};

/// What a checkpoint keeps of a scaler (GradScaler's "scale" and
/// "_growth_tracker").
struct LossScaleState {
  float scale = 1.0f;
  int64_t growthTracker = 0;

  bool operator==(const LossScaleState &other) const {
    return scale == other.scale && growthTracker == other.growthTracker;
  }
};

class LossScaler {
public:
  /// An enabled scaler at the initial scale. Errors unless the initial
  /// scale is positive and finite as an f32, growthFactor > 1 (finite),
  /// 0 < backoffFactor < 1 and 1 <= growthInterval <= 2^31 - 1 (the
  /// tracker is an int32 in PyTorch). GradScaler checks only the factors'
  /// bounds; the rest would stall or zero the scale.
  static StatusOr<LossScaler> create(const LossScalerOptions &options = {});
  /// The scaler of bf16 and f32 training: scale 1 forever, and no step is
  /// skipped (GradScaler(enabled=False).step always steps).
  static LossScaler disabled();

  bool enabled() const { return enabled_; }
  /// The factor to multiply the loss by (1 when disabled).
  float scale() const { return state_.scale; }
  int64_t growthTracker() const { return state_.growthTracker; }
  const LossScalerOptions &options() const { return options_; }

  /// Records whether this step's gradients were all finite and updates
  /// the scale. Returns whether to apply the optimizer step: `finite` when
  /// enabled, always when disabled.
  bool update(bool finite);

  LossScaleState state() const { return state_; }
  /// Resumes from a checkpoint's state. Errors for a scale that is not
  /// positive and finite or a tracker outside [0, growthInterval); a
  /// disabled scaler accepts only its own state {1, 0}, so that resuming
  /// an fp16 run in bf16 (or back) is a decision the caller makes.
  Status restore(const LossScaleState &state);

private:
  LossScaler(const LossScalerOptions &options, bool enabled);

  LossScalerOptions options_;
  bool enabled_ = false;
  LossScaleState state_;
};

} // namespace attnc::train

#endif // ATTNC_TRAIN_LOSSSCALER_H
