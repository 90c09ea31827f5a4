//===- TokenData.cpp - Token files and the training data loader -----------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A loader is a pipeline of three stages, each a ring of buffers:
//
//   producer thread --(depth pinned host buffers)--> next(): copy stream
//     --(depth + 2 device buffers)--> the caller's stream
//
// The producer fills host buffer b % depth with batch b once the copy out of
// it (its event) is done. Call j of next() returns batch j: it queues j's
// copy unless call j - 1 did, makes the caller's stream wait for it, and
// queues the copy of j + 1 when the producer has it, which then overlaps the
// caller's step j. Each copy waits for an event recorded on the caller's
// stream at that call, so it overwrites device buffer (j + 1) % (depth + 2),
// which held batch j - depth - 1, after all the work queued before call j:
// a batch stays valid for depth more calls.
//
//===----------------------------------------------------------------------===//

#include "attnc/runtime/TokenData.h"

#include "Device.h"

#include "lib/support/Extents.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <mutex>
#include <sstream>
#include <sys/mman.h>
#include <sys/stat.h>
#include <system_error>
#include <thread>
#include <unistd.h>

using namespace attnc;
using namespace attnc::rt;

//===----------------------------------------------------------------------===//
// Token files
//===----------------------------------------------------------------------===//

namespace attnc::rt::detail {

/// A file mapped read-only, and where its tokens are.
struct MappedTokens {
  MappedTokens() = default;
  MappedTokens(const MappedTokens &) = delete;
  MappedTokens &operator=(const MappedTokens &) = delete;
  ~MappedTokens() {
    if (mapping)
      ::munmap(mapping, bytes);
  }

  std::string path;
  void *mapping = nullptr; // null for an empty file
  size_t bytes = 0;
  const uint8_t *data = nullptr; // the first token
  int64_t tokens = 0;
  int64_t vocabSize = 0;
  int width = 0;
};

} // namespace attnc::rt::detail

namespace {

using detail::MappedTokens;

constexpr char kMagic[8] = {'A', 'T', 'T', 'N', 'T', 'O', 'K', '1'};
constexpr size_t kHeaderBytes = 32;
constexpr uint32_t kVersion = 1;
/// Ids are int32, so every token must be below 2^31.
constexpr int64_t kMaxVocabSize = int64_t{1} << 31;

std::string fileName(const std::string &path) {
  return "token file '" + path + "'";
}

uint64_t readLittleEndian(const uint8_t *bytes, int width) {
  uint64_t value = 0;
  for (int i = width - 1; i >= 0; --i)
    value = value << 8 | bytes[i];
  return value;
}

/// Maps `path` read-only; the descriptor is closed, the mapping stays.
StatusOr<std::shared_ptr<MappedTokens>> mapFile(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return Status::error("cannot open " + fileName(path) + ": " +
                         std::strerror(errno));
  auto mapped = std::make_shared<MappedTokens>();
  mapped->path = path;
  struct stat info = {};
  std::string error;
  if (::fstat(fd, &info) != 0)
    error = std::strerror(errno);
  else if (!S_ISREG(info.st_mode))
    error = "not a regular file";
  mapped->bytes = static_cast<size_t>(info.st_size);
  if (error.empty() && mapped->bytes > 0) {
    void *mapping =
        ::mmap(nullptr, mapped->bytes, PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapping == MAP_FAILED)
      error = std::string("cannot map it: ") + std::strerror(errno);
    else
      mapped->mapping = mapping;
  }
  ::close(fd);
  if (!error.empty())
    return Status::error(fileName(path) + ": " + error);
  return mapped;
}

const uint8_t *bytesOf(const MappedTokens &file) {
  return static_cast<const uint8_t *>(file.mapping);
}

bool hasMagic(const MappedTokens &file) {
  return file.bytes >= sizeof(kMagic) &&
         std::memcmp(file.mapping, kMagic, sizeof(kMagic)) == 0;
}

Status checkWidthAndVocab(uint64_t width, uint64_t vocabSize) {
  if (width != 2 && width != 4)
    return Status::error(std::to_string(width) +
                         " bytes per token, expected 2 or 4");
  if (vocabSize == 0 || vocabSize > static_cast<uint64_t>(kMaxVocabSize))
    return Status::error("vocabulary size " + std::to_string(vocabSize) +
                         ", expected 1 to 2^31 (ids are int32)");
  return Status::ok();
}

/// The 32-byte header: magic, u32 version, u32 bytes per token, u64 token
/// count, u32 vocabulary size, u32 reserved; then exactly the tokens.
Status parseHeader(MappedTokens &file) {
  if (file.bytes < kHeaderBytes)
    return Status::error(std::to_string(file.bytes) +
                         " bytes, shorter than the 32-byte header");
  const uint8_t *header = bytesOf(file);
  uint64_t version = readLittleEndian(header + 8, 4);
  uint64_t width = readLittleEndian(header + 12, 4);
  uint64_t count = readLittleEndian(header + 16, 8);
  uint64_t vocabSize = readLittleEndian(header + 24, 4);
  uint64_t reserved = readLittleEndian(header + 28, 4);
  if (version != kVersion)
    return Status::error("version " + std::to_string(version) + ", expected " +
                         std::to_string(kVersion));
  if (Status s = checkWidthAndVocab(width, vocabSize); !s)
    return s;
  if (reserved != 0)
    return Status::error("reserved header field is " +
                         std::to_string(reserved) + ", expected 0");
  uint64_t available = file.bytes - kHeaderBytes;
  std::string tokens = "the header says " + std::to_string(count) +
                       " tokens of " + std::to_string(width) + " bytes";
  if (count > available / width)
    return Status::error(tokens + " but the file holds only " +
                         std::to_string(available) + " bytes after it");
  if (count * width != available)
    return Status::error(tokens + " but the file holds " +
                         std::to_string(available - count * width) +
                         " more bytes after them");
  file.data = header + kHeaderBytes;
  file.width = static_cast<int>(width);
  file.tokens = static_cast<int64_t>(count);
  file.vocabSize = static_cast<int64_t>(vocabSize);
  return Status::ok();
}

/// Raw tokens (nanoGPT's .bin) described by PATH.json: {"dtype": "uint16"
/// or "uint32", "vocab_size": V}.
Status parseSidecar(MappedTokens &file) {
  std::string sidecar = file.path + ".json";
  std::ifstream in(sidecar);
  if (!in)
    return Status::error(
        "no ATTNTOK1 header and no sidecar '" + sidecar +
        "' for raw tokens ({\"dtype\": \"uint16\", \"vocab_size\": V})");
  std::stringstream text;
  text << in.rdbuf();
  auto json = nlohmann::json::parse(text.str(), nullptr,
                                    /*allow_exceptions=*/false);
  std::string where = "sidecar '" + sidecar + "'";
  if (!json.is_object())
    return Status::error(where + ": not a JSON object");
  auto dtype = json.find("dtype");
  auto vocab = json.find("vocab_size");
  if (dtype == json.end() || !dtype->is_string() ||
      (*dtype != "uint16" && *dtype != "uint32"))
    return Status::error(where +
                         ": \"dtype\" must be \"uint16\" or \"uint32\"");
  if (vocab == json.end() || !vocab->is_number_unsigned())
    return Status::error(where + ": \"vocab_size\" must be a positive integer");
  uint64_t width = *dtype == "uint16" ? 2 : 4;
  if (Status s = checkWidthAndVocab(width, vocab->get<uint64_t>()); !s)
    return s.withContext(where);
  if (file.bytes % width != 0)
    return Status::error(std::to_string(file.bytes) +
                         " bytes of raw tokens, not a multiple of " +
                         std::to_string(width));
  file.data = bytesOf(file);
  file.width = static_cast<int>(width);
  file.tokens = static_cast<int64_t>(file.bytes / width);
  file.vocabSize = static_cast<int64_t>(vocab->get<uint64_t>());
  return Status::ok();
}

} // namespace

TokenFile::TokenFile(std::shared_ptr<const MappedTokens> tokens)
    : tokens_(std::move(tokens)) {}

StatusOr<TokenFile> TokenFile::open(const std::string &path) {
  auto mapped = mapFile(path);
  if (!mapped)
    return mapped.status();
  MappedTokens &file = **mapped;
  Status s = hasMagic(file) ? parseHeader(file) : parseSidecar(file);
  if (!s)
    return s.withContext(fileName(path));
  return TokenFile(std::move(*mapped));
}

const std::string &TokenFile::path() const { return tokens_->path; }
int64_t TokenFile::tokens() const { return tokens_->tokens; }
int64_t TokenFile::vocabSize() const { return tokens_->vocabSize; }
int TokenFile::bytesPerToken() const { return tokens_->width; }

Status TokenFile::read(int64_t begin, int64_t count, int32_t *out) const {
  const MappedTokens &file = *tokens_;
  if (begin < 0 || count < 0 || begin > file.tokens - count)
    return Status::error(fileName(file.path) + ": cannot read " +
                         std::to_string(count) + " tokens from token " +
                         std::to_string(begin) + " of its " +
                         std::to_string(file.tokens));
  const uint8_t *bytes = file.data + begin * file.width;
  for (int64_t i = 0; i < count; ++i) {
    uint64_t token = readLittleEndian(bytes + i * file.width, file.width);
    if (token >= static_cast<uint64_t>(file.vocabSize))
      return Status::error(
          fileName(file.path) + ": token " + std::to_string(begin + i) +
          " (byte " + std::to_string((bytes - bytesOf(file)) + i * file.width) +
          ") is " + std::to_string(token) + ", not below the vocabulary size " +
          std::to_string(file.vocabSize));
    out[i] = static_cast<int32_t>(token);
  }
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// The order of the windows
//===----------------------------------------------------------------------===//

namespace {

/// SplitMix64's output function (Steele, Lea and Flood).
uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// xoshiro256** (Blackman and Vigna), seeded with four SplitMix64 outputs:
/// integer arithmetic only, so a seed gives the same order with every
/// compiler and standard library, unlike std::shuffle.
class Xoshiro256 {
public:
  explicit Xoshiro256(uint64_t seed) {
    for (uint64_t &word : state_)
      word = mix64(seed += 0x9e3779b97f4a7c15ULL);
  }

  uint64_t next() {
    uint64_t result = rotl(state_[1] * 5, 7) * 9;
    uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  /// Uniform in [0, bound): outputs below 2^64 mod bound are rejected, so
  /// no value is favoured.
  uint64_t below(uint64_t bound) {
    uint64_t threshold = (0 - bound) % bound;
    for (;;)
      if (uint64_t r = next(); r >= threshold)
        return r % bound;
  }

private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  uint64_t state_[4];
};

} // namespace

StatusOr<WindowOrder> WindowOrder::create(int64_t windows, bool shuffle,
                                          uint64_t seed) {
  if (windows < 1)
    return Status::error("a window order needs at least one window, got " +
                         std::to_string(windows));
  return WindowOrder(windows, shuffle, seed);
}

int64_t WindowOrder::window(int64_t sample) {
  int64_t epoch = sample / windows_, index = sample % windows_;
  if (!shuffle_)
    return index;
  if (epoch != epoch_) {
    // Fisher-Yates from the last position down, with the generator of
    // (seed, epoch).
    Xoshiro256 random(seed_ ^ mix64(static_cast<uint64_t>(epoch)));
    permutation_.resize(static_cast<size_t>(windows_));
    for (int64_t i = 0; i < windows_; ++i)
      permutation_[i] = i;
    for (int64_t i = windows_ - 1; i > 0; --i)
      std::swap(permutation_[i],
                permutation_[random.below(static_cast<uint64_t>(i) + 1)]);
    epoch_ = epoch;
  }
  return permutation_[index];
}

//===----------------------------------------------------------------------===//
// The loader
//===----------------------------------------------------------------------===//

namespace attnc::rt::detail {

class LoaderState {
public:
  LoaderState(std::shared_ptr<Device> device, TokenFile file,
              const LoaderOptions &options, WindowOrder order)
      : device_(std::move(device)), file_(std::move(file)), options_(options),
        order_(std::move(order)),
        elements_(static_cast<size_t>(options.batch * options.sequence)) {}
  ~LoaderState();
  LoaderState(const LoaderState &) = delete;
  LoaderState &operator=(const LoaderState &) = delete;

  /// Allocates the buffers and the copy stream, and starts the producer.
  Status start();
  StatusOr<TokenBatch> next(void *stream);
  int64_t position() const {
    return options_.position + returned_ * options_.batch;
  }
  int64_t windows() const { return order_.windows(); }

private:
  /// Bytes of one batch: ids, then labels.
  size_t batchBytes() const { return 2 * elements_ * sizeof(int32_t); }
  size_t hostSlots() const { return host_.size(); }
  size_t deviceSlots() const { return deviceBuffers_.size(); }

  /// The producer thread: fills host buffers until stopped or failed.
  void produce();
  /// Writes batch `batch` to `ids` (then its labels after them).
  Status fill(int64_t batch, int32_t *ids);
  /// Waits until the producer has filled `batch` or failed before it.
  Status awaitFilled(int64_t batch);
  bool filled(int64_t batch);
  /// Queues the copy of `batch` (filled) after `consumed`, the work queued
  /// on the caller's stream so far.
  Status issue(int64_t batch, const DeviceEvent &consumed);
  /// next() without its sticky error.
  Status advance(void *stream);

  std::shared_ptr<Device> device_;
  TokenFile file_;
  LoaderOptions options_;
  WindowOrder order_; // the producer's
  size_t elements_;   // B * N

  std::vector<void *> host_;          // depth pinned batches
  std::vector<void *> deviceBuffers_; // depth + 2 batches on the device
  /// The copy out of each host buffer, which the producer waits for before
  /// filling it again; guarded by mutex_.
  std::vector<std::shared_ptr<const DeviceEvent>> hostCopied_;
  /// The copy into each device buffer, which next() makes its stream wait
  /// for.
  std::vector<std::shared_ptr<const DeviceEvent>> deviceCopied_;
  void *copyStream_ = nullptr;
  bool haveCopyStream_ = false;

  std::mutex mutex_;
  std::condition_variable changed_;
  int64_t filled_ = 0;            // batches the producer has written
  int64_t issued_ = 0;            // batches whose copy is queued
  Status failure_ = Status::ok(); // the producer's, at batch filled_
  std::atomic<bool> stopping_{false};
  std::thread producer_;

  int64_t returned_ = 0;         // batches next() returned
  Status broken_ = Status::ok(); // next()'s first error, returned again
};

} // namespace attnc::rt::detail

using detail::LoaderState;

Status LoaderState::start() {
  size_t depth = static_cast<size_t>(options_.depth);
  for (size_t i = 0; i < depth; ++i) {
    auto data = device_->allocatePinned(batchBytes());
    if (!data)
      return data.status();
    host_.push_back(*data);
  }
  for (size_t i = 0; i < depth + 2; ++i) {
    auto data = device_->allocate(batchBytes());
    if (!data)
      return data.status();
    deviceBuffers_.push_back(*data);
  }
  hostCopied_.resize(hostSlots());
  deviceCopied_.resize(deviceSlots());
  auto stream = device_->createStream();
  if (!stream)
    return stream.status();
  copyStream_ = *stream;
  haveCopyStream_ = true;
  try {
    producer_ = std::thread([this] { produce(); });
  } catch (const std::system_error &error) {
    return Status::error(std::string("cannot start the loader's thread: ") +
                         error.what());
  }
  return Status::ok();
}

LoaderState::~LoaderState() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (producer_.joinable())
    producer_.join();
  // Copies in flight read the host buffers and write the device ones, which
  // the caller's work may still read; nothing to report a failure to.
  (void)device_->synchronize(nullptr);
  for (void *data : host_)
    (void)device_->freePinned(data);
  for (void *data : deviceBuffers_)
    (void)device_->free(data);
  if (haveCopyStream_)
    (void)device_->destroyStream(copyStream_);
}

void LoaderState::produce() {
  for (int64_t batch = 0;; ++batch) {
    size_t slot = static_cast<size_t>(batch) % hostSlots();
    std::shared_ptr<const DeviceEvent> copied;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] {
        return stopping_ || batch - issued_ < static_cast<int64_t>(hostSlots());
      });
      if (stopping_)
        return;
      copied = std::move(hostCopied_[slot]);
    }
    Status s = copied ? device_->synchronize(*copied) : Status::ok();
    if (s)
      s = fill(batch, static_cast<int32_t *>(host_[slot]));
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (s)
        filled_ = batch + 1;
      else
        failure_ = s;
    }
    changed_.notify_all();
    if (!s)
      return;
  }
}

Status LoaderState::fill(int64_t batch, int32_t *ids) {
  int64_t n = options_.sequence;
  int32_t *labels = ids + elements_;
  int64_t first = options_.position + batch * options_.batch;
  for (int64_t row = 0; row < options_.batch && !stopping_; ++row) {
    int64_t sample = first + row;
    int64_t begin = order_.window(sample) * n;
    int32_t *rowIds = ids + row * n, *rowLabels = labels + row * n;
    // Labels are the window's tokens 1..N: the ids after the first, then
    // the window's last token.
    Status s = file_.read(begin, n, rowIds);
    if (s)
      s = file_.read(begin + n, 1, rowLabels + n - 1);
    if (!s)
      return s.withContext("sample " + std::to_string(sample) + " (window " +
                           std::to_string(begin / n) + ")");
    std::copy(rowIds + 1, rowIds + n, rowLabels);
  }
  return Status::ok();
}

Status LoaderState::awaitFilled(int64_t batch) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return filled_ > batch || !failure_; });
  return filled_ > batch ? Status::ok() : failure_;
}

bool LoaderState::filled(int64_t batch) {
  std::lock_guard<std::mutex> lock(mutex_);
  return filled_ > batch;
}

Status LoaderState::issue(int64_t batch, const DeviceEvent &consumed) {
  size_t hostSlot = static_cast<size_t>(batch) % hostSlots();
  size_t deviceSlot = static_cast<size_t>(batch) % deviceSlots();
  Status s = device_->wait(consumed, copyStream_);
  if (s)
    s = device_->copyAsync(deviceBuffers_[deviceSlot], host_[hostSlot],
                           batchBytes(), CopyKind::HostToDevice, copyStream_);
  if (!s)
    return s.withContext("cannot copy a batch to " + device_->name());
  auto copied = device_->record(copyStream_);
  if (!copied)
    return copied.status();
  deviceCopied_[deviceSlot] = *copied;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    hostCopied_[hostSlot] = std::move(*copied);
    issued_ = batch + 1;
  }
  changed_.notify_all();
  return Status::ok();
}

Status LoaderState::advance(void *stream) {
  int64_t batch = returned_;
  // The point after which the caller's stream no longer reads the device
  // buffers the copies below overwrite.
  auto consumed = device_->record(stream);
  if (!consumed)
    return consumed.status();
  if (issued_ == batch) { // not copied ahead by the call before
    if (Status s = awaitFilled(batch); !s)
      return s;
    if (Status s = issue(batch, **consumed); !s)
      return s;
  }
  size_t deviceSlot = static_cast<size_t>(batch) % deviceSlots();
  if (Status s = device_->wait(*deviceCopied_[deviceSlot], stream); !s)
    return s;
  returned_ = batch + 1;
  // The next batch's copy overlaps the work the caller queues now; one the
  // producer has not written yet is copied by the next call instead.
  if (filled(batch + 1))
    return issue(batch + 1, **consumed);
  return Status::ok();
}

StatusOr<TokenBatch> LoaderState::next(void *stream) {
  if (!broken_)
    return broken_;
  if (Status s = device_->checkStream(stream); !s)
    return s;
  if (Status s = advance(stream); !s) {
    broken_ = s;
    return s;
  }
  auto *ids = static_cast<int32_t *>(
      deviceBuffers_[static_cast<size_t>(returned_ - 1) % deviceSlots()]);
  std::vector<int64_t> shape = {options_.batch, options_.sequence};
  TokenBatch batch;
  batch.ids = TensorRef{ids, pkg::DType::I32, shape, {}};
  batch.labels = TensorRef{ids + elements_, pkg::DType::I32, shape, {}};
  return batch;
}

namespace {

Status checkOptions(const LoaderOptions &options) {
  auto range = [](const char *name, int64_t value, int64_t low, int64_t high) {
    if (value >= low && value <= high)
      return Status::ok();
    return Status::error(std::string("loader option ") + name + " is " +
                         std::to_string(value) + ", expected " +
                         std::to_string(low) + " to " + std::to_string(high));
  };
  // Each batch is two i32 [B, N] tensors, whose extents the runtime bounds.
  int64_t elements = options.batch;
  Status s = range("batch", options.batch, 1, kMaxExtent);
  if (s)
    s = range("sequence", options.sequence, 1, kMaxExtent);
  if (s &&
      (!checkedMul(elements, options.sequence) || elements > INT64_MAX / 8))
    s = Status::error("a batch of " + std::to_string(options.batch) + " x " +
                      std::to_string(options.sequence) +
                      " tokens is too large");
  if (s)
    s = range("depth", options.depth, 1, 64);
  if (s)
    s = range("position", options.position, 0, INT64_MAX / 2);
  return s;
}

} // namespace

TokenLoader::TokenLoader(std::unique_ptr<LoaderState> state)
    : state_(std::move(state)) {}

TokenLoader::~TokenLoader() = default;

StatusOr<std::unique_ptr<TokenLoader>>
TokenLoader::create(const Runtime &runtime, TokenFile file,
                    const LoaderOptions &options) {
  if (Status s = checkOptions(options); !s)
    return s;
  // A sample reads N + 1 tokens.
  if (file.tokens() - 1 < options.sequence)
    return Status::error(
        fileName(file.path()) + " has " + std::to_string(file.tokens()) +
        " tokens, fewer than the " + std::to_string(options.sequence + 1) +
        " a sample of sequence length " + std::to_string(options.sequence) +
        " reads");
  auto order = WindowOrder::create((file.tokens() - 1) / options.sequence,
                                   options.shuffle, options.seed);
  if (!order)
    return order.status();
  auto state = std::make_unique<LoaderState>(runtime.device_, std::move(file),
                                             options, std::move(*order));
  if (Status s = state->start(); !s)
    return s.withContext("cannot create a token loader on " + runtime.device());
  return std::unique_ptr<TokenLoader>(new TokenLoader(std::move(state)));
}

StatusOr<TokenBatch> TokenLoader::next(void *stream) {
  return state_->next(stream);
}

int64_t TokenLoader::position() const { return state_->position(); }

int64_t TokenLoader::windows() const { return state_->windows(); }
