//===- TokenDataTest.cpp - Token files and the loader on the host ---------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "TokenFiles.h"

#include "attnc/runtime/TokenData.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <optional>
#include <sys/stat.h>

using namespace attnc;
using namespace attnc::test;

namespace {

/// The message of a failed open of `bytes` written to a file; "" if it
/// opened.
std::string openError(const std::string &stem,
                      const std::vector<uint8_t> &bytes) {
  std::string path = tokenTempPath(stem);
  writeBytes(path, bytes);
  auto file = rt::TokenFile::open(path);
  return file ? "" : file.status().message();
}

std::string prefix(const std::string &stem) {
  return "token file '" + tokenTempPath(stem) + "': ";
}

TEST(TokenDataFile, ReadsHeaderFiles) {
  for (uint32_t width : {2u, 4u}) {
    std::vector<uint32_t> tokens = {5, 0, 70000, 3};
    uint32_t vocabSize = width == 2 ? 65536 : 100000;
    if (width == 2)
      tokens[2] = 65535;
    std::string path = writeTokenFile("header", tokens, width, vocabSize);
    auto file = rt::TokenFile::open(path);
    ASSERT_TRUE(file) << file.status().message();
    EXPECT_EQ(file->path(), path);
    EXPECT_EQ(file->tokens(), 4);
    EXPECT_EQ(file->vocabSize(), vocabSize);
    EXPECT_EQ(file->bytesPerToken(), static_cast<int>(width));
    std::vector<int32_t> read(3);
    ASSERT_TRUE(file->read(1, 3, read.data()));
    EXPECT_EQ(read,
              (std::vector<int32_t>{0, static_cast<int32_t>(tokens[2]), 3}));
  }
}

TEST(TokenDataFile, RejectsBadHeaders) {
  std::vector<uint32_t> five = {1, 2, 3, 4, 5};
  auto withHeader = [&](auto change) {
    TokenHeader header;
    header.count = five.size();
    change(header);
    return tokenFileBytes(header, five);
  };
  std::vector<uint8_t> shortHeader = withHeader([](TokenHeader &) {});
  shortHeader.resize(20);
  EXPECT_EQ(openError("short", shortHeader),
            prefix("short") + "20 bytes, shorter than the 32-byte header");
  EXPECT_EQ(
      openError("version", withHeader([](TokenHeader &h) { h.version = 2; })),
      prefix("version") + "version 2, expected 1");
  EXPECT_EQ(openError("width", withHeader([](TokenHeader &h) { h.width = 3; })),
            prefix("width") + "3 bytes per token, expected 2 or 4");
  EXPECT_EQ(
      openError("vocab", withHeader([](TokenHeader &h) { h.vocabSize = 0; })),
      prefix("vocab") +
          "vocabulary size 0, expected 1 to 2^31 (ids are int32)");
  EXPECT_EQ(openError("vocab-big", withHeader([](TokenHeader &h) {
                        h.vocabSize = 0x80000001u;
                      })),
            prefix("vocab-big") +
                "vocabulary size 2147483649, expected 1 to 2^31 (ids are "
                "int32)");
  EXPECT_EQ(
      openError("reserved", withHeader([](TokenHeader &h) { h.reserved = 7; })),
      prefix("reserved") + "reserved header field is 7, expected 0");
  EXPECT_EQ(
      openError("truncated", withHeader([](TokenHeader &h) { h.count = 10; })),
      prefix("truncated") + "the header says 10 tokens of 2 bytes but the "
                            "file holds only 10 bytes after it");
  EXPECT_EQ(openError("huge",
                      withHeader([](TokenHeader &h) { h.count = UINT64_MAX; })),
            prefix("huge") + "the header says 18446744073709551615 tokens of "
                             "2 bytes but the file holds only 10 bytes after "
                             "it");
  EXPECT_EQ(
      openError("trailing", withHeader([](TokenHeader &h) { h.count = 3; })),
      prefix("trailing") + "the header says 3 tokens of 2 bytes but the file "
                           "holds 4 more bytes after them");
}

TEST(TokenDataFile, RejectsFilesThatAreNotTokenFiles) {
  std::string missing = tokenTempPath("missing");
  auto file = rt::TokenFile::open(missing);
  ASSERT_FALSE(file);
  EXPECT_EQ(file.status().message(), "cannot open token file '" + missing +
                                         "': No such file or directory");

  std::string directory = tokenTempPath("directory");
  ASSERT_EQ(mkdir(directory.c_str(), 0700), 0);
  file = rt::TokenFile::open(directory);
  ASSERT_FALSE(file);
  EXPECT_EQ(file.status().message(),
            "token file '" + directory + "': not a regular file");
  rmdir(directory.c_str());

  EXPECT_EQ(openError("raw", rawTokens({1, 2, 3}, 2)),
            prefix("raw") + "no ATTNTOK1 header and no sidecar '" +
                tokenTempPath("raw") +
                ".json' for raw tokens ({\"dtype\": \"uint16\", "
                "\"vocab_size\": V})");
  EXPECT_EQ(openError("empty", {}),
            prefix("empty") + "no ATTNTOK1 header and no sidecar '" +
                tokenTempPath("empty") +
                ".json' for raw tokens ({\"dtype\": \"uint16\", "
                "\"vocab_size\": V})");
}

/// Writes raw tokens and their sidecar; returns the path of the tokens.
std::string writeRaw(const std::string &stem, const std::vector<uint8_t> &raw,
                     const std::string &sidecar) {
  std::string path = tokenTempPath(stem);
  writeBytes(path, raw);
  writeBytes(path + ".json",
             std::vector<uint8_t>(sidecar.begin(), sidecar.end()));
  return path;
}

TEST(TokenDataFile, ReadsRawFilesWithASidecar) {
  std::vector<uint32_t> tokens = {50256, 7, 0, 1234};
  for (auto [dtype, width] : {std::pair<std::string, int>{"uint16", 2},
                              std::pair<std::string, int>{"uint32", 4}}) {
    std::string path =
        writeRaw("raw-" + dtype, rawTokens(tokens, width),
                 "{\"vocab_size\": 50257, \"dtype\": \"" + dtype + "\"}");
    auto file = rt::TokenFile::open(path);
    ASSERT_TRUE(file) << file.status().message();
    EXPECT_EQ(file->tokens(), 4);
    EXPECT_EQ(file->vocabSize(), 50257);
    EXPECT_EQ(file->bytesPerToken(), width);
    std::vector<int32_t> read(4);
    ASSERT_TRUE(file->read(0, 4, read.data()));
    EXPECT_EQ(read, (std::vector<int32_t>{50256, 7, 0, 1234}));
  }
}

TEST(TokenDataFile, RejectsBadSidecars) {
  auto rawError = [](const std::string &stem, const std::string &sidecar,
                     size_t bytes = 8) {
    std::string path = writeRaw(stem, std::vector<uint8_t>(bytes, 1), sidecar);
    auto file = rt::TokenFile::open(path);
    return file ? "" : file.status().message();
  };
  auto where = [](const std::string &stem) {
    return prefix(stem) + "sidecar '" + tokenTempPath(stem) + ".json': ";
  };
  EXPECT_EQ(rawError("json", "{\"dtype\": "),
            where("json") + "not a JSON object");
  EXPECT_EQ(rawError("dtype", R"({"dtype": "int8", "vocab_size": 5})"),
            where("dtype") + "\"dtype\" must be \"uint16\" or \"uint32\"");
  EXPECT_EQ(rawError("no-vocab", R"({"dtype": "uint16"})"),
            where("no-vocab") + "\"vocab_size\" must be a positive integer");
  EXPECT_EQ(rawError("neg-vocab", R"({"dtype": "uint16", "vocab_size": -3})"),
            where("neg-vocab") + "\"vocab_size\" must be a positive integer");
  EXPECT_EQ(rawError("zero-vocab", R"({"dtype": "uint16", "vocab_size": 0})"),
            where("zero-vocab") +
                "vocabulary size 0, expected 1 to 2^31 (ids are int32)");
  EXPECT_EQ(rawError("odd", R"({"dtype": "uint32", "vocab_size": 9})", 6),
            prefix("odd") + "6 bytes of raw tokens, not a multiple of 4");
}

TEST(TokenDataFile, ReadChecksTheRangeAndTheVocabulary) {
  std::string path = writeTokenFile("read", {1, 2, 3, 300, 4});
  auto file = rt::TokenFile::open(path);
  ASSERT_TRUE(file) << file.status().message();
  std::vector<int32_t> out(5);
  Status s = file->read(3, 3, out.data());
  EXPECT_EQ(s.message(), "token file '" + path +
                             "': cannot read 3 tokens from token 3 of its 5");
  s = file->read(1, 4, out.data());
  EXPECT_EQ(s.message(), "token file '" + path +
                             "': token 3 (byte 38) is 300, not below the "
                             "vocabulary size 256");
  EXPECT_TRUE(file->read(5, 0, out.data()));
}

//===----------------------------------------------------------------------===//
// The order of the windows
//===----------------------------------------------------------------------===//

TEST(TokenDataOrder, SequentialIsFileOrderEachEpoch) {
  auto order = rt::WindowOrder::create(7, /*shuffle=*/false, 1);
  ASSERT_TRUE(order);
  for (int64_t i = 0; i < 30; ++i)
    EXPECT_EQ(order->window(i), i % 7);
  EXPECT_FALSE(rt::WindowOrder::create(0, false, 0));
}

/// Windows of samples [first, first + count).
std::vector<int64_t> windows(rt::WindowOrder order, int64_t first,
                             int64_t count) {
  std::vector<int64_t> result;
  for (int64_t i = first; i < first + count; ++i)
    result.push_back(order.window(i));
  return result;
}

TEST(TokenDataOrder, ShuffledEpochsArePermutations) {
  const int64_t w = 37;
  auto order = rt::WindowOrder::create(w, /*shuffle=*/true, 42);
  ASSERT_TRUE(order);
  std::vector<int64_t> identity(w);
  std::iota(identity.begin(), identity.end(), 0);
  std::vector<std::vector<int64_t>> epochs;
  for (int64_t e = 0; e < 4; ++e) {
    epochs.push_back(windows(*order, e * w, w));
    std::vector<int64_t> sorted = epochs.back();
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, identity) << "epoch " << e;
    EXPECT_NE(epochs.back(), identity) << "epoch " << e;
  }
  for (int64_t e = 1; e < 4; ++e)
    EXPECT_NE(epochs[e], epochs[e - 1]) << "epoch " << e;
}

TEST(TokenDataOrder, SeedAndSampleAloneFixTheWindow) {
  auto forward = rt::WindowOrder::create(11, true, 7);
  auto backward = rt::WindowOrder::create(11, true, 7);
  auto other = rt::WindowOrder::create(11, true, 8);
  ASSERT_TRUE(forward && backward && other);
  std::vector<int64_t> expected = windows(*forward, 0, 55);
  for (int64_t i = 54; i >= 0; --i)
    EXPECT_EQ(backward->window(i), expected[i]) << "sample " << i;
  EXPECT_NE(windows(*other, 0, 55), expected);
  // The algorithm is specified (docs/runtime.md), so the order is the same
  // on every platform and standard library.
  EXPECT_EQ(windows(*rt::WindowOrder::create(10, true, 0), 0, 10),
            (std::vector<int64_t>{4, 2, 1, 7, 5, 6, 3, 9, 8, 0}));
}

//===----------------------------------------------------------------------===//
// The loader
//===----------------------------------------------------------------------===//

class TokenDataLoader : public ::testing::Test {
protected:
  void SetUp() override {
    auto runtime = rt::Runtime::open("host");
    ASSERT_TRUE(runtime) << runtime.status().message();
    runtime_ = *runtime;
  }

  StatusOr<std::unique_ptr<rt::TokenLoader>>
  loader(const std::string &path, const rt::LoaderOptions &options) {
    auto file = rt::TokenFile::open(path);
    if (!file)
      return file.status();
    return rt::TokenLoader::create(*runtime_, *file, options);
  }

  std::optional<rt::Runtime> runtime_;
};

/// A batch's ids and labels, copied out of the loader's buffers.
struct Rows {
  std::vector<int32_t> ids, labels;
};

Rows copyOut(const rt::TokenBatch &batch) {
  size_t elements =
      static_cast<size_t>(batch.ids.shape[0] * batch.ids.shape[1]);
  const auto *ids = static_cast<const int32_t *>(batch.ids.data);
  const auto *labels = static_cast<const int32_t *>(batch.labels.data);
  return {std::vector<int32_t>(ids, ids + elements),
          std::vector<int32_t>(labels, labels + elements)};
}

/// Rows of `count` batches of `loader`; fails the test on an error.
std::vector<Rows> take(rt::TokenLoader &loader, int count) {
  std::vector<Rows> batches;
  for (int i = 0; i < count; ++i) {
    auto batch = loader.next();
    EXPECT_TRUE(batch) << batch.status().message();
    if (!batch)
      break;
    EXPECT_EQ(batch->ids.dtype, pkg::DType::I32);
    batches.push_back(copyOut(*batch));
  }
  return batches;
}

TEST_F(TokenDataLoader, SequentialBatchesReadTheWindowsInOrder) {
  // Token i is i: a window's first id says which window it is.
  std::string path =
      writeTokenFile("sequential", countingTokens(101, 1024), 2, 1024);
  rt::LoaderOptions options;
  options.batch = 3;
  options.sequence = 8; // 12 windows
  auto made = loader(path, options);
  ASSERT_TRUE(made) << made.status().message();
  rt::TokenLoader &tokens = **made;
  EXPECT_EQ(tokens.windows(), 12);
  std::vector<Rows> batches = take(tokens, 9); // two epochs and a quarter
  ASSERT_EQ(batches.size(), 9u);
  EXPECT_EQ(tokens.position(), 27);
  for (int64_t b = 0; b < 9; ++b)
    for (int64_t r = 0; r < 3; ++r)
      for (int64_t j = 0; j < 8; ++j) {
        int32_t first = static_cast<int32_t>((b * 3 + r) % 12 * 8);
        EXPECT_EQ(batches[b].ids[r * 8 + j], first + j);
        EXPECT_EQ(batches[b].labels[r * 8 + j], first + j + 1);
      }
}

TEST_F(TokenDataLoader, LabelsAreTheIdsShiftedByOne) {
  std::vector<uint32_t> tokens(500);
  uint32_t state = 1;
  for (uint32_t &token : tokens) // any tokens, not counting ones
    token = (state = state * 1103515245u + 12345u) >> 16 & 255;
  std::string path = writeTokenFile("labels", tokens);
  rt::LoaderOptions options;
  options.batch = 4;
  options.sequence = 16;
  options.shuffle = true;
  auto made = loader(path, options);
  ASSERT_TRUE(made) << made.status().message();
  for (const Rows &batch : take(**made, 10))
    for (int64_t r = 0; r < 4; ++r) {
      const int32_t *ids = batch.ids.data() + r * 16;
      const int32_t *labels = batch.labels.data() + r * 16;
      // Find the window by its ids, then check every label against the file.
      int64_t window = -1;
      for (int64_t w = 0; w < 31 && window < 0; ++w)
        if (std::equal(ids, ids + 16, tokens.begin() + w * 16))
          window = w;
      ASSERT_GE(window, 0);
      for (int64_t j = 0; j < 16; ++j)
        EXPECT_EQ(labels[j], static_cast<int32_t>(tokens[window * 16 + j + 1]));
    }
}

TEST_F(TokenDataLoader, ShuffledEpochsCoverEveryWindowOnce) {
  std::string path =
      writeTokenFile("cover", countingTokens(241, 1024), 2, 1024);
  rt::LoaderOptions options;
  options.batch = 6;
  options.sequence = 4; // 60 windows: 10 batches an epoch
  options.shuffle = true;
  options.seed = 3;
  auto made = loader(path, options);
  ASSERT_TRUE(made) << made.status().message();
  std::vector<Rows> batches = take(**made, 20);
  ASSERT_EQ(batches.size(), 20u);
  std::vector<int64_t> identity(60);
  std::iota(identity.begin(), identity.end(), 0);
  for (int epoch = 0; epoch < 2; ++epoch) {
    std::vector<int64_t> seen;
    for (int b = epoch * 10; b < epoch * 10 + 10; ++b)
      for (int r = 0; r < 6; ++r)
        seen.push_back(batches[b].ids[r * 4] / 4);
    EXPECT_NE(seen, identity);
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(seen, identity) << "epoch " << epoch;
  }
}

TEST_F(TokenDataLoader, ResumingGivesTheBatchesOfTheUninterruptedRun) {
  std::string path =
      writeTokenFile("resume", countingTokens(116, 1024), 2, 1024);
  rt::LoaderOptions options;
  options.batch = 4;
  options.sequence = 5; // 23 windows: epochs end inside batches
  options.shuffle = true;
  options.seed = 1234;
  options.depth = 3;
  auto whole = loader(path, options);
  ASSERT_TRUE(whole) << whole.status().message();
  std::vector<Rows> uninterrupted = take(**whole, 24);
  ASSERT_EQ(uninterrupted.size(), 24u);
  // Sample s of the run is row s % 4 of batch s / 4.
  auto sampleIds = [&](int64_t s) {
    const Rows &batch = uninterrupted[s / 4];
    return std::vector<int32_t>(batch.ids.begin() + s % 4 * 5,
                                batch.ids.begin() + s % 4 * 5 + 5);
  };

  for (int64_t position : {28, 29, 46, 47}) { // a checkpoint's position()
    options.position = position;
    auto resumed = loader(path, options);
    ASSERT_TRUE(resumed) << resumed.status().message();
    EXPECT_EQ((*resumed)->position(), position);
    std::vector<Rows> batches = take(**resumed, 8);
    ASSERT_EQ(batches.size(), 8u);
    EXPECT_EQ((*resumed)->position(), position + 32);
    for (int64_t s = position; s < position + 32; ++s) {
      const Rows &batch = batches[(s - position) / 4];
      int64_t row = (s - position) % 4;
      std::vector<int32_t> ids(batch.ids.begin() + row * 5,
                               batch.ids.begin() + row * 5 + 5);
      EXPECT_EQ(ids, sampleIds(s))
          << "resumed at " << position << ", sample " << s;
    }
    if (position % 4 == 0) // whole batches: bitwise the same
      for (int64_t b = 0; b < 8; ++b) {
        EXPECT_EQ(batches[b].ids, uninterrupted[position / 4 + b].ids);
        EXPECT_EQ(batches[b].labels, uninterrupted[position / 4 + b].labels);
      }
  }
}

TEST_F(TokenDataLoader, TokenOutsideTheVocabularyFailsNext) {
  std::vector<uint32_t> tokens = countingTokens(200);
  tokens[45] = 300; // in window 5, sample 5: the second batch of two
  std::string path = writeTokenFile("oov", tokens);
  rt::LoaderOptions options;
  options.batch = 2;
  options.sequence = 8;
  auto made = loader(path, options);
  ASSERT_TRUE(made) << made.status().message();
  rt::TokenLoader &tokensLoader = **made;
  EXPECT_TRUE(tokensLoader.next());
  EXPECT_TRUE(tokensLoader.next());
  std::string expected = "sample 5 (window 5): token file '" + path +
                         "': token 45 (byte 122) is 300, not below the "
                         "vocabulary size 256";
  auto failed = tokensLoader.next();
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.status().message(), expected);
  failed = tokensLoader.next(); // and every later call
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.status().message(), expected);
  EXPECT_EQ(tokensLoader.position(), 4);
}

TEST_F(TokenDataLoader, BatchesStayValidForDepthMoreCalls) {
  std::string path = writeTokenFile("valid", countingTokens(2000));
  for (int depth : {1, 2, 4}) {
    rt::LoaderOptions options;
    options.batch = 2;
    options.sequence = 16;
    options.depth = depth;
    auto made = loader(path, options);
    ASSERT_TRUE(made) << made.status().message();
    std::vector<rt::TokenBatch> kept;
    std::vector<Rows> copies;
    for (int call = 0; call < 12; ++call) {
      auto batch = (*made)->next();
      ASSERT_TRUE(batch) << batch.status().message();
      kept.push_back(*batch);
      copies.push_back(copyOut(*batch));
      for (int earlier = std::max(0, call - depth); earlier < call; ++earlier) {
        Rows now = copyOut(kept[earlier]);
        EXPECT_EQ(now.ids, copies[earlier].ids)
            << "depth " << depth << ", batch " << earlier << " at call "
            << call;
        EXPECT_EQ(now.labels, copies[earlier].labels);
      }
    }
  }
}

TEST_F(TokenDataLoader, StopsCleanlyMidPrefetch) {
  // Large batches keep the thread busy filling when the loader goes.
  std::string path = writeTokenFile("stop", countingTokens(1 << 20));
  rt::LoaderOptions options;
  options.batch = 64;
  options.sequence = 512;
  options.shuffle = true;
  options.depth = 4;
  for (int calls : {0, 1, 3}) {
    auto made = loader(path, options);
    ASSERT_TRUE(made) << made.status().message();
    for (int i = 0; i < calls; ++i)
      EXPECT_TRUE((*made)->next());
  }
  // A thread that stopped at a bad token, and one waiting for free buffers.
  std::vector<uint32_t> tokens = countingTokens(4000);
  tokens[20] = 999; // window 2: the thread fails filling the third batch
  std::string bad = writeTokenFile("stop-bad", tokens);
  options.batch = 1;
  options.sequence = 8;
  options.shuffle = false;
  options.depth = 2;
  for (const std::string &file : {bad, path}) {
    auto made = loader(file, options);
    ASSERT_TRUE(made) << made.status().message();
    EXPECT_TRUE((*made)->next());
  }
}

TEST_F(TokenDataLoader, RejectsBadOptions) {
  std::string path = writeTokenFile("options", countingTokens(9));
  auto error = [&](auto change) {
    rt::LoaderOptions options;
    options.sequence = 8;
    change(options);
    auto made = loader(path, options);
    return made ? "" : made.status().message();
  };
  EXPECT_EQ(error([](rt::LoaderOptions &) {}), "");
  EXPECT_EQ(error([](rt::LoaderOptions &o) { o.batch = 0; }),
            "loader option batch is 0, expected 1 to 2147483647");
  EXPECT_EQ(error([](rt::LoaderOptions &o) { o.sequence = -1; }),
            "loader option sequence is -1, expected 1 to 2147483647");
  EXPECT_EQ(error([](rt::LoaderOptions &o) { o.depth = 0; }),
            "loader option depth is 0, expected 1 to 64");
  EXPECT_EQ(error([](rt::LoaderOptions &o) { o.position = -5; }),
            "loader option position is -5, expected 0 to 4611686018427387903");
  EXPECT_EQ(error([](rt::LoaderOptions &o) {
              o.batch = 2147483647;
              o.sequence = 2147483647;
            }),
            "a batch of 2147483647 x 2147483647 tokens is too large");
  EXPECT_EQ(error([](rt::LoaderOptions &o) { o.sequence = 9; }),
            "token file '" + path +
                "' has 9 tokens, fewer than the 10 a sample of sequence "
                "length 9 reads");
}

TEST_F(TokenDataLoader, HostTakesOnlyTheNullStream) {
  std::string path = writeTokenFile("stream", countingTokens(100));
  rt::LoaderOptions options;
  options.sequence = 8;
  auto made = loader(path, options);
  ASSERT_TRUE(made) << made.status().message();
  int notAStream = 0;
  auto batch = (*made)->next(&notAStream);
  ASSERT_FALSE(batch);
  EXPECT_EQ(batch.status().message(),
            "the host device has no streams; pass a null stream");
  batch = (*made)->next(); // the loader is still usable
  ASSERT_TRUE(batch) << batch.status().message();
  EXPECT_EQ(static_cast<const int32_t *>(batch->ids.data)[0], 0);
  EXPECT_EQ((*made)->position(), 1);
}

} // namespace
