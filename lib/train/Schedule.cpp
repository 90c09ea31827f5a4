//===- Schedule.cpp - The learning rate of each step ----------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "attnc/train/Schedule.h"

#include <cassert>
#include <cmath>
#include <cstdio>
#include <string>

using namespace attnc;
using namespace attnc::train;

namespace {

/// M_PI is POSIX, not C++17.
constexpr double kPi = 3.14159265358979323846;

/// A double as messages write it: enough digits to tell 6e-4 from 6.1e-4.
std::string numberText(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

} // namespace

Status LrSchedule::verify() const {
  auto fail = [](const std::string &what) {
    return Status::error("lr schedule: " + what);
  };
  if (!std::isfinite(peak) || peak < 0)
    return fail("peak " + numberText(peak) + " is not a finite rate >= 0");
  if (!std::isfinite(min) || min < 0)
    return fail("min " + numberText(min) + " is not a finite rate >= 0");
  if (min > peak)
    return fail("min " + numberText(min) + " exceeds peak " + numberText(peak));
  if (warmupSteps < 0)
    return fail("warmup of " + std::to_string(warmupSteps) + " steps");
  if (totalSteps < 0)
    return fail("total of " + std::to_string(totalSteps) + " steps");
  if (warmupSteps > totalSteps)
    return fail("warmup of " + std::to_string(warmupSteps) +
                " steps exceeds the total of " + std::to_string(totalSteps));
  return Status::ok();
}

double LrSchedule::at(int64_t step) const {
  assert(step >= 0 && verify() && "a verified schedule, a step >= 0");
  if (step < warmupSteps)
    return peak * static_cast<double>(step + 1) /
           static_cast<double>(warmupSteps);
  if (step >= totalSteps)
    return min;
  // Here warmupSteps < totalSteps, so the ratio is in [0, 1).
  double ratio = static_cast<double>(step - warmupSteps) /
                 static_cast<double>(totalSteps - warmupSteps);
  double coefficient = 0.5 * (1.0 + std::cos(kPi * ratio));
  return min + coefficient * (peak - min);
}
