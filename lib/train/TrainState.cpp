//===- TrainState.cpp - The "attnc.train" metadata entry ------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "attnc/train/Checkpoint.h"
#include "lib/train/Utf8.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <set>

using namespace attnc;
using namespace attnc::train;
using json = nlohmann::json;

namespace {

Status fieldError(const std::string &field, const std::string &what) {
  return Status::error(std::string(kTrainStateKey) + ": \"" + field + "\" " +
                       what);
}

/// Errors for a member of `object` (at `path`) other than `known`, so that
/// a misspelt field is not silently dropped.
Status checkKeys(const json &object, const std::string &path,
                 const std::set<std::string> &known) {
  for (const auto &item : object.items())
    if (!known.count(item.key()))
      return fieldError(path + item.key(),
                        "is not a field of version " +
                            std::to_string(kTrainStateVersion));
  return Status::ok();
}

/// The member `key` of `object`; `path` prefixes the key in messages.
StatusOr<const json *> member(const json &object, const std::string &path,
                              const std::string &key) {
  auto it = object.find(key);
  if (it == object.end())
    return fieldError(path + key, "is missing");
  return &*it;
}

StatusOr<int64_t> nonNegativeInteger(const json &object,
                                     const std::string &path,
                                     const std::string &key) {
  auto value = member(object, path, key);
  if (!value)
    return value.status();
  const json &number = **value;
  if (!number.is_number_integer() ||
      (number.is_number_unsigned() &&
       number.get<uint64_t>() >
           uint64_t(std::numeric_limits<int64_t>::max())) ||
      (!number.is_number_unsigned() && number.get<int64_t>() < 0))
    return fieldError(path + key,
                      "is " + number.dump() + ", not an integer in [0, 2^63)");
  return number.get<int64_t>();
}

/// A uint64 spelled in decimal digits, without sign or leading zeros.
StatusOr<uint64_t> decimalWord(const json &object, const std::string &path,
                               const std::string &key) {
  auto value = member(object, path, key);
  if (!value)
    return value.status();
  const json &text = **value;
  auto fail = [&] {
    return fieldError(path + key, "is " + text.dump() +
                                      ", not a string of the decimal "
                                      "digits of an integer in [0, 2^64)");
  };
  if (!text.is_string())
    return fail();
  const std::string &digits = text.get_ref<const std::string &>();
  if (digits.empty() || (digits.size() > 1 && digits[0] == '0'))
    return fail();
  uint64_t word = 0;
  for (char digit : digits)
    if (digit < '0' || digit > '9' ||
        __builtin_mul_overflow(word, uint64_t(10), &word) ||
        __builtin_add_overflow(word, uint64_t(digit - '0'), &word))
      return fail();
  return word;
}

StatusOr<const json *> objectMember(const json &object, const std::string &path,
                                    const std::string &key) {
  auto value = member(object, path, key);
  if (value && !(*value)->is_object())
    return fieldError(path + key, "is not an object");
  return value;
}

StatusOr<RngState> decodeRng(const json &object) {
  auto rng = objectMember(object, "", "rng");
  if (!rng)
    return rng.status();
  if (Status status = checkKeys(**rng, "rng.", {"seed", "counter"}); !status)
    return status;
  auto seed = decimalWord(**rng, "rng.", "seed");
  if (!seed)
    return seed.status();
  auto counter = decimalWord(**rng, "rng.", "counter");
  if (!counter)
    return counter.status();
  return RngState{*seed, *counter};
}

StatusOr<LossScaleState> decodeLossScale(const json &object) {
  auto entry = objectMember(object, "", "loss_scale");
  if (!entry)
    return entry.status();
  const std::string path = "loss_scale.";
  if (Status status = checkKeys(**entry, path, {"scale", "growth_tracker"});
      !status)
    return status;
  auto scale = member(**entry, path, "scale");
  if (!scale)
    return scale.status();
  double value = (*scale)->is_number() ? (*scale)->get<double>() : -1;
  float single = static_cast<float>(value);
  if (!(value > 0) || !std::isfinite(single) ||
      static_cast<double>(single) != value)
    return fieldError(path + "scale",
                      "is " + (*scale)->dump() + ", not a positive finite f32");
  auto tracker = nonNegativeInteger(**entry, path, "growth_tracker");
  if (!tracker)
    return tracker.status();
  return LossScaleState{single, *tracker};
}

StatusOr<std::map<std::string, std::string>> decodeConfig(const json &object) {
  auto config = objectMember(object, "", "config");
  if (!config)
    return config.status();
  std::map<std::string, std::string> settings;
  for (const auto &item : (*config)->items()) {
    if (!item.value().is_string())
      return fieldError("config." + item.key(), "is not a string");
    settings[item.key()] = item.value().get<std::string>();
  }
  return settings;
}

Status decodeVersion(const json &object) {
  auto version = nonNegativeInteger(object, "", "version");
  if (!version)
    return version.status();
  if (*version != kTrainStateVersion)
    return fieldError("version", "is " + std::to_string(*version) +
                                     "; this build reads version " +
                                     std::to_string(kTrainStateVersion));
  return Status::ok();
}

} // namespace

StatusOr<std::string> train::encodeTrainState(const TrainState &state) {
  auto fail = [](const std::string &what) {
    return Status::error(std::string(kTrainStateKey) + ": cannot save " + what);
  };
  if (state.step < 0 || state.samples < 0)
    return fail("step " + std::to_string(state.step) + " after " +
                std::to_string(state.samples) + " samples");
  if (!(state.lossScale.scale > 0) || !std::isfinite(state.lossScale.scale) ||
      state.lossScale.growthTracker < 0)
    return fail("loss scale " + std::to_string(state.lossScale.scale) +
                " with growth tracker " +
                std::to_string(state.lossScale.growthTracker));
  for (const auto &[key, value] : state.config)
    if (!isValidUtf8(key) || !isValidUtf8(value))
      return fail("config entry \"" + key + "\": not UTF-8 text");
  json entry = {
      {"version", kTrainStateVersion},
      {"step", state.step},
      {"samples", state.samples},
      {"rng",
       {{"seed", std::to_string(state.rng.seed)},
        {"counter", std::to_string(state.rng.counter)}}},
      // A double holds every f32 exactly; json writes the shortest decimal
      // that reads back as that double.
      {"loss_scale",
       {{"scale", static_cast<double>(state.lossScale.scale)},
        {"growth_tracker", state.lossScale.growthTracker}}},
      {"config", state.config},
  };
  return entry.dump();
}

StatusOr<TrainState> train::decodeTrainState(const std::string &text) {
  json entry = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (entry.is_discarded())
    return Status::error(std::string(kTrainStateKey) + ": not valid JSON");
  if (!entry.is_object())
    return Status::error(std::string(kTrainStateKey) + ": not a JSON object");
  if (Status status = decodeVersion(entry); !status)
    return status;
  if (Status status = checkKeys(
          entry, "",
          {"version", "step", "samples", "rng", "loss_scale", "config"});
      !status)
    return status;
  TrainState state;
  auto step = nonNegativeInteger(entry, "", "step");
  if (!step)
    return step.status();
  auto samples = nonNegativeInteger(entry, "", "samples");
  if (!samples)
    return samples.status();
  auto rng = decodeRng(entry);
  if (!rng)
    return rng.status();
  auto lossScale = decodeLossScale(entry);
  if (!lossScale)
    return lossScale.status();
  auto config = decodeConfig(entry);
  if (!config)
    return config.status();
  return TrainState{*step, *samples, *rng, *lossScale, std::move(*config)};
}
