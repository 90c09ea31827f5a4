//===- LossScaler.cpp - Dynamic loss scaling ------------------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "attnc/train/LossScaler.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

using namespace attnc;
using namespace attnc::train;

namespace {

std::string numberText(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.9g", value);
  return text;
}

bool isPositiveFinite(float value) { return std::isfinite(value) && value > 0; }

} // namespace

LossScaler::LossScaler(const LossScalerOptions &options, bool enabled)
    : options_(options), enabled_(enabled) {
  state_.scale = enabled ? static_cast<float>(options.initScale) : 1.0f;
}

StatusOr<LossScaler> LossScaler::create(const LossScalerOptions &options) {
  auto fail = [](const std::string &what) {
    return Status::error("loss scaler: " + what);
  };
  if (!isPositiveFinite(static_cast<float>(options.initScale)))
    return fail("initial scale " + numberText(options.initScale) +
                " is not a positive finite f32");
  if (!(options.growthFactor > 1) || !std::isfinite(options.growthFactor))
    return fail("growth factor " + numberText(options.growthFactor) +
                " is not a finite number > 1");
  if (!(options.backoffFactor > 0 && options.backoffFactor < 1))
    return fail("backoff factor " + numberText(options.backoffFactor) +
                " is outside (0, 1)");
  if (options.growthInterval < 1 ||
      options.growthInterval > std::numeric_limits<int32_t>::max())
    return fail("growth interval " + std::to_string(options.growthInterval) +
                " is outside [1, 2^31 - 1]");
  return LossScaler(options, /*enabled=*/true);
}

LossScaler LossScaler::disabled() {
  return LossScaler(LossScalerOptions(), /*enabled=*/false);
}

bool LossScaler::update(bool finite) {
  if (!enabled_)
    return true;
  if (!finite) {
    state_.scale = static_cast<float>(static_cast<double>(state_.scale) *
                                      options_.backoffFactor);
    state_.growthTracker = 0;
    return false;
  }
  int64_t successful = state_.growthTracker + 1;
  if (successful < options_.growthInterval) {
    state_.growthTracker = successful;
    return true;
  }
  float grown = static_cast<float>(static_cast<double>(state_.scale) *
                                   options_.growthFactor);
  // Never grow past f32's range to inf.
  if (std::isfinite(grown))
    state_.scale = grown;
  state_.growthTracker = 0;
  return true;
}

Status LossScaler::restore(const LossScaleState &state) {
  if (!enabled_) {
    if (state == LossScaleState())
      return Status::ok();
    return Status::error("loss scaler: loss scaling is off, but the state "
                         "to restore has scale " +
                         numberText(state.scale) + " and growth tracker " +
                         std::to_string(state.growthTracker));
  }
  if (!isPositiveFinite(state.scale))
    return Status::error("loss scaler: cannot restore scale " +
                         numberText(state.scale) +
                         ", not a positive finite f32");
  if (state.growthTracker < 0 || state.growthTracker >= options_.growthInterval)
    return Status::error("loss scaler: cannot restore growth tracker " +
                         std::to_string(state.growthTracker) +
                         ", outside [0, " +
                         std::to_string(options_.growthInterval) + ")");
  state_ = state;
  return Status::ok();
}
