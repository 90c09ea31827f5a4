//===- TrainTest.cpp - Schedule, loss scaling and checkpoints -------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "attnc/train/Checkpoint.h"
#include "attnc/train/LossScaler.h"
#include "attnc/train/Schedule.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <unistd.h>

using namespace attnc;
using namespace attnc::train;
namespace fs = std::filesystem;
namespace st = attnc::safetensors;

namespace {

//===----------------------------------------------------------------------===//
// Learning-rate schedule and bias corrections
//===----------------------------------------------------------------------===//

std::string scheduleError(LrSchedule schedule) {
  Status status = schedule.verify();
  return status ? "" : status.message();
}

TEST(LibTrainSchedule, WarmupThenCosineThenMin) {
  LrSchedule schedule{6e-4, 6e-5, 10, 110};
  ASSERT_TRUE(schedule.verify());
  EXPECT_DOUBLE_EQ(schedule.at(0), 6e-5) << "step 0 is 1/10 of warmup";
  EXPECT_DOUBLE_EQ(schedule.at(4), 3e-4);
  EXPECT_DOUBLE_EQ(schedule.at(9), 6e-4) << "warmup ends at peak";
  EXPECT_DOUBLE_EQ(schedule.at(10), 6e-4) << "cosine starts at peak";
  // Ratio 1/4: min + (1 + cos(pi/4)) / 2 * (peak - min).
  EXPECT_NEAR(schedule.at(35), 5.2091883092036783e-4, 1e-18);
  EXPECT_DOUBLE_EQ(schedule.at(60), 3.3e-4) << "halfway down";
  EXPECT_NEAR(schedule.at(109), 6.0133228701252e-5, 1e-16);
  EXPECT_EQ(schedule.at(110), 6e-5);
  EXPECT_EQ(schedule.at(1000000), 6e-5);
}

TEST(LibTrainSchedule, WarmupEdgeCases) {
  LrSchedule noWarmup{1.0, 0.0, 0, 4};
  ASSERT_TRUE(noWarmup.verify());
  EXPECT_EQ(noWarmup.at(0), 1.0);
  EXPECT_DOUBLE_EQ(noWarmup.at(2), 0.5);
  EXPECT_EQ(noWarmup.at(4), 0.0);
  LrSchedule allWarmup{1.0, 0.25, 4, 4};
  ASSERT_TRUE(allWarmup.verify());
  EXPECT_EQ(allWarmup.at(0), 0.25);
  EXPECT_EQ(allWarmup.at(3), 1.0);
  EXPECT_EQ(allWarmup.at(4), 0.25) << "no cosine: straight to min";
  LrSchedule constant{3e-4, 3e-4, 0, 0};
  ASSERT_TRUE(constant.verify());
  EXPECT_EQ(constant.at(0), 3e-4);
}

TEST(LibTrainSchedule, RejectsBadArguments) {
  EXPECT_NE(scheduleError({1e-4, 1e-3, 0, 10}).find("min 0.001 exceeds peak"),
            std::string::npos);
  EXPECT_NE(scheduleError({1e-3, 0, 20, 10}).find("warmup of 20 steps exceeds"),
            std::string::npos);
  EXPECT_NE(scheduleError({1e-3, 0, -1, 10}).find("warmup of -1 steps"),
            std::string::npos);
  EXPECT_NE(scheduleError({1e-3, 0, 0, -5}).find("total of -5 steps"),
            std::string::npos);
  EXPECT_NE(scheduleError({NAN, 0, 0, 10}).find("peak nan"), std::string::npos);
  EXPECT_NE(scheduleError({1e-3, -1e-5, 0, 10}).find("min -1e-05"),
            std::string::npos);
  EXPECT_EQ(scheduleError({1e-3, 1e-3, 10, 10}), "");
}

//===----------------------------------------------------------------------===//
// Loss scaling
//===----------------------------------------------------------------------===//

LossScaler makeScaler(LossScalerOptions options) {
  auto scaler = LossScaler::create(options);
  EXPECT_TRUE(scaler) << scaler.status().message();
  return std::move(scaler).value();
}

std::string scalerError(LossScalerOptions options) {
  auto scaler = LossScaler::create(options);
  return scaler ? "" : scaler.status().message();
}

TEST(LibTrainLossScaler, GradScalerDefaults) {
  LossScaler scaler = makeScaler({});
  EXPECT_TRUE(scaler.enabled());
  EXPECT_EQ(scaler.scale(), 65536.0f);
  EXPECT_EQ(scaler.growthTracker(), 0);
  EXPECT_EQ(scaler.options().growthInterval, 2000);
  for (int i = 0; i < 1999; ++i)
    ASSERT_TRUE(scaler.update(true));
  EXPECT_EQ(scaler.scale(), 65536.0f);
  EXPECT_EQ(scaler.growthTracker(), 1999);
  EXPECT_TRUE(scaler.update(true));
  EXPECT_EQ(scaler.scale(), 131072.0f) << "grows on the 2000th finite step";
  EXPECT_EQ(scaler.growthTracker(), 0);
}

TEST(LibTrainLossScaler, OverflowHalvesAndResetsTracker) {
  LossScaler scaler = makeScaler({1024.0, 2.0, 0.5, 3});
  EXPECT_TRUE(scaler.update(true));
  EXPECT_TRUE(scaler.update(true));
  EXPECT_EQ(scaler.growthTracker(), 2);
  EXPECT_FALSE(scaler.update(false)) << "the step is skipped";
  EXPECT_EQ(scaler.scale(), 512.0f);
  EXPECT_EQ(scaler.growthTracker(), 0);
  EXPECT_FALSE(scaler.update(false));
  EXPECT_EQ(scaler.scale(), 256.0f);
  EXPECT_TRUE(scaler.update(true));
  EXPECT_TRUE(scaler.update(true));
  EXPECT_EQ(scaler.scale(), 256.0f) << "two finite steps of three";
  EXPECT_TRUE(scaler.update(true));
  EXPECT_EQ(scaler.scale(), 512.0f);
  EXPECT_EQ(scaler.growthTracker(), 0);
}

TEST(LibTrainLossScaler, ScaleIsAnF32) {
  // The products are rounded to f32 as torch stores them.
  LossScaler odd = makeScaler({3.0, 1.1, 0.3, 1});
  EXPECT_TRUE(odd.update(true));
  EXPECT_EQ(odd.scale(), 3.3f);
  EXPECT_FALSE(odd.update(false));
  EXPECT_EQ(odd.scale(), static_cast<float>(double(3.3f) * 0.3));
  // Growing past f32's largest power of two would give inf: the scale
  // stays, the tracker resets.
  LossScaler top = makeScaler({std::ldexp(1.0, 127), 2.0, 0.5, 1});
  EXPECT_TRUE(top.update(true));
  EXPECT_EQ(top.scale(), std::ldexp(1.0f, 127));
  EXPECT_EQ(top.growthTracker(), 0);
  // 0.1 is not an f32: the initial scale is its f32 rounding.
  EXPECT_EQ(makeScaler({0.1, 2.0, 0.5, 10}).scale(), 0.1f);
}

TEST(LibTrainLossScaler, DisabledNeverChangesNorSkips) {
  LossScaler scaler = LossScaler::disabled();
  EXPECT_FALSE(scaler.enabled());
  EXPECT_EQ(scaler.scale(), 1.0f);
  EXPECT_TRUE(scaler.update(false)) << "GradScaler(enabled=False) steps";
  for (int i = 0; i < 5000; ++i)
    scaler.update(true);
  EXPECT_EQ(scaler.scale(), 1.0f);
  EXPECT_EQ(scaler.growthTracker(), 0);
  EXPECT_TRUE(scaler.restore({1.0f, 0}));
  Status mismatch = scaler.restore({1024.0f, 3});
  ASSERT_FALSE(mismatch);
  EXPECT_EQ(mismatch.message(),
            "loss scaler: loss scaling is off, but the state to restore has "
            "scale 1024 and growth tracker 3");
}

TEST(LibTrainLossScaler, RejectsBadOptions) {
  EXPECT_EQ(scalerError({65536.0, 1.0, 0.5, 2000}),
            "loss scaler: growth factor 1 is not a finite number > 1");
  EXPECT_EQ(scalerError({65536.0, 2.0, 1.0, 2000}),
            "loss scaler: backoff factor 1 is outside (0, 1)");
  EXPECT_EQ(scalerError({65536.0, 2.0, 0.0, 2000}),
            "loss scaler: backoff factor 0 is outside (0, 1)");
  EXPECT_EQ(scalerError({65536.0, 2.0, 0.5, 0}),
            "loss scaler: growth interval 0 is outside [1, 2^31 - 1]");
  EXPECT_EQ(scalerError({65536.0, 2.0, 0.5, int64_t(1) << 31}),
            "loss scaler: growth interval 2147483648 is outside [1, 2^31 - "
            "1]");
  EXPECT_EQ(scalerError({0.0, 2.0, 0.5, 2000}),
            "loss scaler: initial scale 0 is not a positive finite f32");
  EXPECT_EQ(scalerError({1e39, 2.0, 0.5, 2000}),
            "loss scaler: initial scale 1e+39 is not a positive finite f32");
}

TEST(LibTrainLossScaler, StateRoundTrips) {
  LossScalerOptions options{4096.0, 2.0, 0.5, 4};
  LossScaler original = makeScaler(options);
  bool pattern[] = {true, false, true, true, true, true, true, false, true};
  for (bool finite : pattern)
    original.update(finite);
  LossScaleState saved = original.state();
  EXPECT_EQ(saved.scale, 2048.0f);
  EXPECT_EQ(saved.growthTracker, 1);
  LossScaler resumed = makeScaler(options);
  ASSERT_TRUE(resumed.restore(saved));
  for (bool finite : pattern) {
    EXPECT_EQ(original.update(finite), resumed.update(finite));
    EXPECT_EQ(original.state(), resumed.state());
  }
  Status tracker = resumed.restore({2048.0f, 4});
  ASSERT_FALSE(tracker);
  EXPECT_EQ(tracker.message(),
            "loss scaler: cannot restore growth tracker 4, outside [0, 4)");
  Status scale = resumed.restore({std::numeric_limits<float>::infinity(), 0});
  ASSERT_FALSE(scale);
  EXPECT_EQ(scale.message(),
            "loss scaler: cannot restore scale inf, not a positive finite f32");
}

//===----------------------------------------------------------------------===//
// Checkpoints
//===----------------------------------------------------------------------===//

template <typename T> std::vector<uint8_t> bytesOf(const std::vector<T> &xs) {
  std::vector<uint8_t> bytes(xs.size() * sizeof(T));
  std::memcpy(bytes.data(), xs.data(), bytes.size());
  return bytes;
}

/// Weights and moments whose bits a text format would lose: a NaN with a
/// payload, -0, a subnormal, bf16 bits, a 64-bit integer, an empty tensor.
std::vector<st::Tensor> sampleTensors(int64_t salt) {
  std::vector<uint32_t> weights = {0x7fc12345u, 0x80000000u,
                                   0x00000001u, 0x3f800000u,
                                   0xc0490fdbu, static_cast<uint32_t>(salt)};
  std::vector<uint16_t> moments = {0x3f80, 0xff81, 0x0001,
                                   static_cast<uint16_t>(salt)};
  std::vector<int64_t> counter = {std::numeric_limits<int64_t>::min() + salt};
  return {{"model.wq", pkg::DType::F32, {2, 3}, bytesOf(weights)},
          {"adam.m.wq", pkg::DType::BF16, {4}, bytesOf(moments)},
          {"adam.count", pkg::DType::I64, {}, bytesOf(counter)},
          {"empty", pkg::DType::F16, {0, 5}, {}}};
}

TrainState sampleState(int64_t step) {
  TrainState state;
  state.step = step;
  state.samples = step * 512 + 7;
  state.rng = {std::numeric_limits<uint64_t>::max(),
               (uint64_t(1) << 53) + 1 + uint64_t(step)};
  state.lossScale = {std::numeric_limits<float>::denorm_min(), 17};
  state.config = {{"model", "gpt2-124m"}, {"lr", "0.0006"}, {"note", "é ü"}};
  return state;
}

void expectSameTensors(const std::vector<st::Tensor> &actual,
                       const std::vector<st::Tensor> &expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_EQ(actual[i].name, expected[i].name);
    EXPECT_EQ(actual[i].dtype, expected[i].dtype);
    EXPECT_EQ(actual[i].shape, expected[i].shape);
    EXPECT_EQ(actual[i].data, expected[i].data) << actual[i].name;
  }
}

std::string readText(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeText(const fs::path &path, const std::string &text) {
  std::ofstream(path, std::ios::binary) << text;
}

class LibTrainCheckpoint : public ::testing::Test {
protected:
  void SetUp() override {
    const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
    root = fs::temp_directory_path() /
           ("attnc-train-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(root);
    fs::create_directories(root);
    dir = (root / "ckpt").string();
  }
  void TearDown() override { fs::remove_all(root); }

  void save(int64_t step, int keepLast = 0) {
    Status status =
        saveCheckpoint(dir, sampleState(step), sampleTensors(step), keepLast);
    ASSERT_TRUE(status) << status.message();
  }

  std::string loadError() {
    auto loaded = loadLatestCheckpoint(dir);
    return loaded ? "" : loaded.status().message();
  }

  /// The names in the checkpoint directory, sorted.
  std::vector<std::string> names() {
    std::vector<std::string> found;
    for (const auto &entry : fs::directory_iterator(dir))
      found.push_back(entry.path().filename().string());
    std::sort(found.begin(), found.end());
    return found;
  }

  fs::path root;
  std::string dir;
};

TEST_F(LibTrainCheckpoint, RoundTripsStateAndTensorsExactly) {
  dir = (root / "a" / "b" / "ckpt").string(); // created with its parents
  save(123, 3);
  auto loaded = loadLatestCheckpoint(dir);
  ASSERT_TRUE(loaded) << loaded.status().message();
  EXPECT_EQ(loaded->path, dir + "/step-00000123.safetensors");
  EXPECT_TRUE(loaded->state == sampleState(123));
  EXPECT_EQ(loaded->state.rng.seed, 18446744073709551615ull);
  EXPECT_EQ(loaded->state.lossScale.scale,
            std::numeric_limits<float>::denorm_min());
  EXPECT_EQ(loaded->warning, "");
  expectSameTensors(loaded->tensors, sampleTensors(123));
  EXPECT_EQ(readText(fs::path(dir) / "latest"), "step-00000123.safetensors\n");
}

TEST_F(LibTrainCheckpoint, IsAPlainSafetensorsFile) {
  // What safetensors.torch.load_file needs: standard dtypes, string
  // metadata, contiguous data; "format": "pt" for Hugging Face loaders.
  save(7);
  auto file = st::readFile(dir + "/step-00000007.safetensors");
  ASSERT_TRUE(file) << file.status().message();
  EXPECT_EQ(file->metadata.at("format"), "pt");
  EXPECT_EQ(file->metadata.size(), 2u);
  expectSameTensors(file->tensors, sampleTensors(7));
  // The same bytes as the package library's own writer.
  auto expected = st::serialize(*file);
  ASSERT_TRUE(expected);
  std::string written = readText(dir + "/step-00000007.safetensors");
  EXPECT_EQ(std::vector<uint8_t>(written.begin(), written.end()), *expected);
}

TEST_F(LibTrainCheckpoint, StateTextRoundTripsAwkwardValues) {
  for (float scale : {1.0f, 0.1f, 3.3f, std::numeric_limits<float>::max(),
                      std::numeric_limits<float>::min(), 65536.0f}) {
    TrainState state = sampleState(1);
    state.step = state.samples = std::numeric_limits<int64_t>::max();
    state.lossScale.scale = scale;
    state.rng = {0, std::numeric_limits<uint64_t>::max() - 1};
    state.config.clear();
    auto text = encodeTrainState(state);
    ASSERT_TRUE(text) << text.status().message();
    auto decoded = decodeTrainState(*text);
    ASSERT_TRUE(decoded) << decoded.status().message() << " in " << *text;
    EXPECT_TRUE(*decoded == state) << *text;
  }
  TrainState bad = sampleState(1);
  bad.config["bytes"] = "\xff\xfe";
  auto text = encodeTrainState(bad);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.status().message(),
            "attnc.train: cannot save config entry \"bytes\": not UTF-8 text");
}

TEST_F(LibTrainCheckpoint, KeepsTheLastAndPointsLatestAtTheNewest) {
  for (int64_t step = 1; step <= 5; ++step)
    save(step * 100, 2);
  EXPECT_EQ(names(),
            (std::vector<std::string>{"latest", "step-00000400.safetensors",
                                      "step-00000500.safetensors"}));
  auto loaded = loadLatestCheckpoint(dir);
  ASSERT_TRUE(loaded) << loaded.status().message();
  EXPECT_EQ(loaded->state.step, 500);
  save(600, 0);
  EXPECT_EQ(names().size(), 4u) << "keepLast 0 keeps every checkpoint";
  save(700, 1);
  EXPECT_EQ(names(),
            (std::vector<std::string>{"latest", "step-00000700.safetensors"}));
}

TEST_F(LibTrainCheckpoint, LaterStepsOfAnAbandonedRunStay) {
  save(10);
  save(20);
  save(30);
  save(10, 1); // resumed from step 10 and saved again
  EXPECT_EQ(names(),
            (std::vector<std::string>{"latest", "step-00000010.safetensors",
                                      "step-00000020.safetensors",
                                      "step-00000030.safetensors"}));
  auto loaded = loadLatestCheckpoint(dir);
  ASSERT_TRUE(loaded) << loaded.status().message();
  EXPECT_EQ(loaded->state.step, 10);
}

TEST_F(LibTrainCheckpoint, CrashLeavesThePreviousCheckpointLoadable) {
  save(1);
  save(2);
  // A save of step 3 killed at various points: a partial temporary
  // checkpoint, a renamed but truncated one (a lost page cache), and a
  // temporary `latest` not yet renamed.
  std::string good = readText(fs::path(dir) / "step-00000002.safetensors");
  writeText(fs::path(dir) / "step-00000003.safetensors.tmp.999.0",
            good.substr(0, 40));
  writeText(fs::path(dir) / "step-00000003.safetensors",
            good.substr(0, good.size() / 2));
  writeText(fs::path(dir) / "latest.tmp.999.1", "step-00000003.safetensors\n");
  auto loaded = loadLatestCheckpoint(dir);
  ASSERT_TRUE(loaded) << loaded.status().message();
  EXPECT_EQ(loaded->state.step, 2);
  expectSameTensors(loaded->tensors, sampleTensors(2));
  // The next save replaces the broken file and sweeps the temporaries.
  save(3, 2);
  EXPECT_EQ(names(),
            (std::vector<std::string>{"latest", "step-00000002.safetensors",
                                      "step-00000003.safetensors"}));
  loaded = loadLatestCheckpoint(dir);
  ASSERT_TRUE(loaded) << loaded.status().message();
  EXPECT_EQ(loaded->state.step, 3);
}

TEST_F(LibTrainCheckpoint, WithoutLatestTakesTheNewestThatLoads) {
  save(1);
  save(2);
  std::string good = readText(fs::path(dir) / "step-00000002.safetensors");
  writeText(fs::path(dir) / "step-00000003.safetensors", good.substr(0, 100));
  fs::remove(fs::path(dir) / "latest");
  auto loaded = loadLatestCheckpoint(dir);
  ASSERT_TRUE(loaded) << loaded.status().message();
  EXPECT_EQ(loaded->state.step, 2);
  EXPECT_EQ(loaded->warning.find(dir +
                                 " has no \"latest\"; took "
                                 "step-00000002.safetensors, its newest "
                                 "checkpoint that loads; skipped " +
                                 dir + "/step-00000003.safetensors: "),
            0u)
      << loaded->warning;
}

TEST_F(LibTrainCheckpoint, LoadErrorsSayWhatAndWhere) {
  fs::remove_all(dir);
  EXPECT_EQ(loadError(), "checkpoint directory " + dir + " does not exist");
  fs::create_directories(dir);
  EXPECT_EQ(loadError(), dir + ": no checkpoint (neither \"latest\" nor a "
                               "step-<step>.safetensors file)");
  save(4);
  writeText(fs::path(dir) / "latest", "step-00000009.safetensors\n");
  EXPECT_EQ(loadError(), dir + "/latest names step-00000009.safetensors, "
                               "which does not exist");
  writeText(fs::path(dir) / "latest", "../../etc/passwd\n");
  EXPECT_EQ(loadError(), dir + "/latest: \"../../etc/passwd\" is not a "
                               "checkpoint name (step-<step>.safetensors)");
  // A checkpoint renamed to another step.
  fs::copy_file(fs::path(dir) / "step-00000004.safetensors",
                fs::path(dir) / "step-00000005.safetensors");
  writeText(fs::path(dir) / "latest", "step-00000005.safetensors");
  EXPECT_EQ(loadError(), dir + "/step-00000005.safetensors: holds step 4, "
                               "its name says 5");
  // A corrupt file.
  writeText(fs::path(dir) / "step-00000005.safetensors", "garbage");
  EXPECT_EQ(loadError(), dir + "/step-00000005.safetensors: safetensors: 7 "
                               "bytes, fewer than the 8 of the header length");
}

TEST_F(LibTrainCheckpoint, MetadataErrorsNameTheField) {
  fs::create_directories(dir);
  std::string path = dir + "/step-00000001.safetensors";
  ASSERT_TRUE(st::writeFile({sampleTensors(1), {{"format", "pt"}}}, path));
  auto loaded = loadCheckpoint(path);
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.status().message(),
            path + ": no \"attnc.train\" entry in its metadata: not a "
                   "training checkpoint");
  ASSERT_TRUE(st::writeFile(
      {sampleTensors(1), {{"attnc.train", R"({"version": 1, "step": 1,)"}}},
      path));
  loaded = loadCheckpoint(path);
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.status().message(), path + ": attnc.train: not valid JSON");
}

TEST(LibTrainState, DecodeErrorsNameTheField) {
  auto error = [](const std::string &text) {
    auto state = decodeTrainState(text);
    return state ? "" : state.status().message();
  };
  const std::string rng = R"("rng": {"seed": "1", "counter": "2"})";
  const std::string scale =
      R"("loss_scale": {"scale": 1024.0, "growth_tracker": 3})";
  auto with = [&](const std::string &fields) {
    return "{\"version\": 1, " + fields + "}";
  };
  const std::string rest = rng + ", " + scale + R"(, "config": {})";
  EXPECT_EQ(error(with(R"("step": 5, "samples": 9, )" + rest)), "");
  EXPECT_EQ(error("[1]"), "attnc.train: not a JSON object");
  EXPECT_EQ(error(R"({"version": 2})"),
            "attnc.train: \"version\" is 2; this build reads version 1");
  EXPECT_EQ(error(R"({"step": 1})"), "attnc.train: \"version\" is missing");
  EXPECT_EQ(error(with(R"("samples": 9, )" + rest)),
            "attnc.train: \"step\" is missing");
  EXPECT_EQ(error(with(R"("step": -1, "samples": 9, )" + rest)),
            "attnc.train: \"step\" is -1, not an integer in [0, 2^63)");
  EXPECT_EQ(error(with(R"("step": "5", "samples": 9, )" + rest)),
            "attnc.train: \"step\" is \"5\", not an integer in [0, 2^63)");
  EXPECT_EQ(error(with(R"("step": 5, "samples": 1.5, )" + rest)),
            "attnc.train: \"samples\" is 1.5, not an integer in [0, 2^63)");
  EXPECT_EQ(error(with(R"("step": 5, "samples": 9, "extra": 1, )" + rest)),
            "attnc.train: \"extra\" is not a field of version 1");
  auto rngError = [&](const std::string &seed) {
    return error(with(R"("step": 5, "samples": 9, "rng": {"seed": )" + seed +
                      R"(, "counter": "2"}, )" + scale + R"(, "config": {})"));
  };
  const std::string notWord = ", not a string of the decimal digits of an "
                              "integer in [0, 2^64)";
  EXPECT_EQ(rngError("1"), "attnc.train: \"rng.seed\" is 1" + notWord);
  EXPECT_EQ(rngError(R"("18446744073709551616")"),
            "attnc.train: \"rng.seed\" is \"18446744073709551616\"" + notWord);
  EXPECT_EQ(rngError(R"("007")"),
            "attnc.train: \"rng.seed\" is \"007\"" + notWord);
  EXPECT_EQ(rngError(R"("-1")"),
            "attnc.train: \"rng.seed\" is \"-1\"" + notWord);
  EXPECT_EQ(rngError(R"("18446744073709551615")"), "");
  auto scaleError = [&](const std::string &lossScale) {
    return error(with(R"("step": 5, "samples": 9, )" + rng +
                      R"(, "loss_scale": )" + lossScale + R"(, "config": {})"));
  };
  EXPECT_EQ(scaleError(R"({"scale": 0.1, "growth_tracker": 0})"),
            "attnc.train: \"loss_scale.scale\" is 0.1, not a positive finite "
            "f32");
  EXPECT_EQ(scaleError(R"({"scale": 0, "growth_tracker": 0})"),
            "attnc.train: \"loss_scale.scale\" is 0, not a positive finite "
            "f32");
  EXPECT_EQ(scaleError(R"({"scale": 1e39, "growth_tracker": 0})"),
            "attnc.train: \"loss_scale.scale\" is 1e+39, not a positive "
            "finite f32");
  EXPECT_EQ(scaleError(R"({"scale": 2.0})"),
            "attnc.train: \"loss_scale.growth_tracker\" is missing");
  EXPECT_EQ(scaleError("3"), "attnc.train: \"loss_scale\" is not an object");
  EXPECT_EQ(error(with(R"("step": 5, "samples": 9, )" + rng + ", " + scale +
                       R"(, "config": {"lr": 0.1})")),
            "attnc.train: \"config.lr\" is not a string");
}

TEST_F(LibTrainCheckpoint, SaveErrors) {
  auto saveError = [&](const TrainState &state,
                       const std::vector<st::Tensor> &tensors, int keepLast) {
    Status status = saveCheckpoint(dir, state, tensors, keepLast);
    return status ? "" : status.message();
  };
  std::vector<st::Tensor> twice = sampleTensors(1);
  twice.push_back(twice.front());
  const std::string path = dir + "/step-00000001.safetensors: ";
  EXPECT_EQ(saveError(sampleState(1), twice, 1),
            path + "tensor \"model.wq\": a second tensor of that name");
  std::vector<st::Tensor> short_ = sampleTensors(1);
  short_[0].data.pop_back();
  EXPECT_EQ(saveError(sampleState(1), short_, 1),
            path + "tensor \"model.wq\": 23 bytes of data do not match its "
                   "shape");
  std::vector<st::Tensor> bits = {{"mask", pkg::DType::I1, {1}, {1}}};
  EXPECT_EQ(saveError(sampleState(1), bits, 1),
            path + "tensor \"mask\": its dtype i1 has no safetensors name");
  TrainState negative = sampleState(1);
  negative.step = -3;
  EXPECT_EQ(saveError(negative, {}, 1),
            "attnc.train: cannot save step -3 after 519 samples");
  EXPECT_EQ(saveError(sampleState(1), {}, -1),
            "checkpoint: cannot keep the last -1 checkpoints");
  EXPECT_FALSE(fs::exists(dir)) << "nothing written on an argument error";
  writeText(dir, "a file where the directory goes");
  EXPECT_EQ(saveError(sampleState(1), {}, 1),
            dir + " exists but is not a directory");
}

} // namespace
