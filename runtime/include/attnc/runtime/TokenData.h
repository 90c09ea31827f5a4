//===- TokenData.h - Token files and the training data loader ---*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Training data for language models: a flat file of tokens, memory-mapped,
// cut into windows of N + 1 tokens that a loader hands out as batches of
// int32 ids and labels on a device:
//
//   auto file = attnc::rt::TokenFile::open("train.tok");
//   attnc::rt::LoaderOptions options;
//   options.batch = 8;
//   options.sequence = 1024;
//   options.shuffle = true;
//   auto loader = attnc::rt::TokenLoader::create(*rt, *file, options);
//   auto batch = (*loader)->next(stream); // batch->ids, batch->labels
//
// docs/runtime.md ("Token files and the data loader") gives the file
// format, the order of the windows and how resuming reproduces it.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_RUNTIME_TOKENDATA_H
#define ATTNC_RUNTIME_TOKENDATA_H

#include "attnc/runtime/Export.h"
#include "attnc/runtime/Runtime.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace attnc::rt {

namespace detail {
struct MappedTokens;
class LoaderState;
} // namespace detail

/// A token file, mapped read-only while any copy of the handle lives: either
/// the 32-byte ATTNTOK1 header and the tokens, or raw little-endian tokens
/// (nanoGPT's .bin) described by a sidecar PATH.json.
class ATTNC_RT_EXPORT TokenFile {
public:
  /// Maps and validates the file; errors name it and say what is wrong.
  static StatusOr<TokenFile> open(const std::string &path);

  const std::string &path() const;
  int64_t tokens() const;
  int64_t vocabSize() const;
  /// 2 (uint16) or 4 (uint32).
  int bytesPerToken() const;
  /// Copies tokens [begin, begin + count) to `out` as int32; fails for a
  /// range outside the file or a token not below vocabSize(), naming the
  /// file and the token's index.
  Status read(int64_t begin, int64_t count, int32_t *out) const;

private:
  explicit TokenFile(std::shared_ptr<const detail::MappedTokens> tokens);

  std::shared_ptr<const detail::MappedTokens> tokens_;
};

/// The windows a run reads, in order. Window w holds tokens [w N, w N + N]
/// of a file (ids the first N, labels the last N), for the
/// floor((tokens - 1) / N) windows that do not overlap. Sample i of a run
/// reads window(i): epoch i / windows() visits each window once, in order
/// or, shuffled, in a permutation that only the seed and the epoch fix.
class ATTNC_RT_EXPORT WindowOrder {
public:
  /// `windows` >= 1.
  static StatusOr<WindowOrder> create(int64_t windows, bool shuffle,
                                      uint64_t seed);

  int64_t windows() const { return windows_; }
  /// The window of sample `sample` (>= 0): a pure function of the seed and
  /// `sample`. Keeps the permutation of the last epoch asked for.
  int64_t window(int64_t sample);

private:
  WindowOrder(int64_t windows, bool shuffle, uint64_t seed)
      : windows_(windows), shuffle_(shuffle), seed_(seed) {}

  int64_t windows_;
  bool shuffle_;
  uint64_t seed_;
  int64_t epoch_ = -1; // whose permutation permutation_ holds
  std::vector<int64_t> permutation_;
};

struct LoaderOptions {
  /// Samples per batch (B) and tokens per sample (N).
  int64_t batch = 1;
  int64_t sequence = 1;
  /// Windows in a seeded permutation per epoch, or in file order.
  bool shuffle = false;
  uint64_t seed = 0;
  /// Samples consumed before: a run resumed at a checkpoint's position()
  /// gets the batches the uninterrupted run would have.
  int64_t position = 0;
  /// Batches prepared ahead of the one next() returns (>= 1).
  int depth = 2;
};

/// One batch, in memory of the loader's device: i32 [B, N] each, row r
/// of labels being row r of ids shifted by one token.
struct TokenBatch {
  TensorRef ids;
  TensorRef labels;
};

/// Hands out a token file's batches on a Runtime's device. A thread fills
/// pinned host buffers `depth` batches ahead; next() queues each batch's
/// copy to the device on a stream of the loader's own, ordered before the
/// work queued on the caller's stream afterwards, and queues the copy of
/// the following batch at once, so that it overlaps the caller's step. One
/// thread at a time may call next() and position().
class ATTNC_RT_EXPORT TokenLoader {
public:
  /// Fails for options out of range or a file with fewer than N + 1 tokens.
  static StatusOr<std::unique_ptr<TokenLoader>>
  create(const Runtime &runtime, TokenFile file, const LoaderOptions &options);
  /// Stops and joins the thread (also mid-prefetch) and waits for the
  /// device's work before freeing the buffers.
  ~TokenLoader();
  TokenLoader(const TokenLoader &) = delete;
  TokenLoader &operator=(const TokenLoader &) = delete;

  /// The next batch, ordered before the work queued on `stream` (a
  /// CUstream; null on the host) from now on. Its tensors stay valid for
  /// `depth` more calls: the (depth + 1)-th call after this one reuses their
  /// memory once the work queued on its stream before it is done.
  /// An unreadable batch (a token outside the vocabulary) or a driver error
  /// fails this call and every later one.
  StatusOr<TokenBatch> next(void *stream = nullptr);
  /// Samples consumed: options.position plus B per batch returned.
  int64_t position() const;
  /// The order of the windows, i.e. floor((tokens - 1) / N) of them.
  int64_t windows() const;

private:
  explicit TokenLoader(std::unique_ptr<detail::LoaderState> state);

  std::unique_ptr<detail::LoaderState> state_;
};

} // namespace attnc::rt

#endif // ATTNC_RUNTIME_TOKENDATA_H
