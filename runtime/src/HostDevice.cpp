//===- HostDevice.cpp - The host CPU as a device --------------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A host kernel's blob is dlopen'ed from an anonymous memory file
// (memfd_create), so no file ever exists that a killed process could leave
// behind; where that is not available, from a private temporary file that
// is unlinked as soon as it is mapped. Its
// entry (see pkg::Kernel for the ABI) receives one MLIR strided memref
// descriptor per argument and runs a range of linear block ids; the device
// splits the grid into chunks and runs them on its thread pool.
//
//===----------------------------------------------------------------------===//

#include "HostDevice.h"
#include "ThreadPool.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>

using namespace attnc;
using namespace attnc::rt;
using namespace attnc::rt::detail;

namespace {

constexpr const char *kHostTarget = "host";
constexpr const char *kHostBlobKind = "host-so";
constexpr unsigned kMaxThreads = 4096;

/// extern "C" void entry(void **args, int64_t blockBegin, int64_t blockEnd)
using HostEntry = void (*)(void **, int64_t, int64_t);

std::string errnoText() { return std::strerror(errno); }

/// Writes all of `data` to `fd`, retrying short writes.
bool writeAll(int fd, const std::vector<uint8_t> &data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

/// A blob loaded with dlopen; closed when the last kernel using it goes.
/// The dynamic loader returns the library already loaded under a path it
/// is given again, so the path of each blob stays its own while the blob
/// is loaded: the memory file stays open (its /proc/self/fd name is not
/// reused), and temporary files are never named twice in a process.
class SharedObject {
public:
  static StatusOr<std::shared_ptr<const SharedObject>>
  open(const pkg::Blob &blob);
  /// dlopen of the blob through a memory file (left open in `fd`) or a
  /// temporary one; the handle, or null with `error` set.
  static void *loadFromMemory(const pkg::Blob &blob, int &fd,
                              std::string &error);
  static void *loadFromTempFile(const pkg::Blob &blob, std::string &error);
  ~SharedObject() {
    dlclose(handle_);
    if (fd_ >= 0)
      ::close(fd_);
  }
  SharedObject(const SharedObject &) = delete;
  SharedObject &operator=(const SharedObject &) = delete;

  StatusOr<HostEntry> lookup(const std::string &symbol) const;
  /// The argument ranks `entry` records ({n, ranks...}, see attnc's
  /// attn-host-entry-points).
  StatusOr<std::vector<size_t>> argRanks(const std::string &entry) const;
  StatusOr<GridRecord> gridRecord(const std::string &entry) const;

private:
  SharedObject(void *handle, int fd, std::string blobName)
      : handle_(handle), fd_(fd), blobName_(std::move(blobName)) {}

  /// `what` names the symbol in the error ("entry", ...).
  StatusOr<void *> address(const std::string &symbol, const char *what) const;

  void *handle_;
  int fd_; // the memory file, or -1
  std::string blobName_;
};

StatusOr<std::shared_ptr<const SharedObject>>
SharedObject::open(const pkg::Blob &blob) {
  static const uint8_t elfMagic[4] = {0x7f, 'E', 'L', 'F'};
  if (blob.data.size() < sizeof(elfMagic) ||
      !std::equal(elfMagic, elfMagic + sizeof(elfMagic), blob.data.begin()))
    return Status::error("blob '" + blob.name +
                         "' is not an ELF shared library");

  std::string error;
  int fd = -1;
  void *handle = loadFromMemory(blob, fd, error);
  if (!handle && error.empty()) // no memory files here
    handle = loadFromTempFile(blob, error);
  if (!handle)
    return Status::error(error);
  return std::shared_ptr<const SharedObject>(
      new SharedObject(handle, fd, blob.name));
}

/// Empty `error` with a null handle: memory files are not available
/// (memfd_create or /proc/self/fd missing), try a temporary file.
void *SharedObject::loadFromMemory(const pkg::Blob &blob, int &fd,
                                   std::string &error) {
  fd = ::memfd_create(("attnc-host-" + blob.name).c_str(), MFD_CLOEXEC);
  if (fd < 0)
    return nullptr;
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  void *handle = nullptr;
  if (!writeAll(fd, blob.data))
    error = "cannot write blob '" + blob.name + "' to memory: " + errnoText();
  else if (::access(path.c_str(), F_OK) == 0 &&
           !(handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL))) {
    const char *dlError = dlerror();
    error = "cannot load blob '" + blob.name +
            "': " + (dlError ? dlError : "unknown dlopen error");
  }
  if (!handle) {
    ::close(fd);
    fd = -1;
  }
  return handle;
}

void *SharedObject::loadFromTempFile(const pkg::Blob &blob,
                                     std::string &error) {
  const char *tmpDir = std::getenv("TMPDIR");
  static std::atomic<uint64_t> loads{0};
  std::string path = std::string(tmpDir && *tmpDir ? tmpDir : "/tmp") +
                     "/attnc-host-" + std::to_string(::getpid()) + "-" +
                     std::to_string(loads.fetch_add(1)) + "-XXXXXX";
  // O_CLOEXEC: a child forked meanwhile must not inherit the descriptor.
  int fd = ::mkostemp(path.data(), O_CLOEXEC);
  if (fd < 0) {
    error = "cannot create a temporary file for blob '" + blob.name + "' (" +
            path + "): " + errnoText();
    return nullptr;
  }
  bool written = writeAll(fd, blob.data);
  std::string writeError = written ? "" : errnoText();
  if (::close(fd) != 0 && written) {
    written = false;
    writeError = errnoText();
  }
  void *handle =
      written ? dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL) : nullptr;
  const char *dlError = written && !handle ? dlerror() : nullptr;
  // dlopen has mapped the file (or failed): the name is no longer needed.
  ::unlink(path.c_str());
  if (!written)
    error = "cannot write blob '" + blob.name + "' to " + path + ": " +
            writeError;
  else if (!handle)
    error = "cannot load blob '" + blob.name +
            "': " + (dlError ? dlError : "unknown dlopen error");
  return handle;
}

StatusOr<void *> SharedObject::address(const std::string &symbol,
                                       const char *what) const {
  dlerror(); // clear any earlier error
  void *address = dlsym(handle_, symbol.c_str());
  const char *error = dlerror();
  if (error || !address)
    return Status::error("blob '" + blobName_ + "' has no " + what + " '" +
                         symbol + "': " + (error ? error : "symbol is null"));
  return address;
}

StatusOr<HostEntry> SharedObject::lookup(const std::string &symbol) const {
  auto found = address(symbol, "entry");
  if (!found)
    return found.status();
  return reinterpret_cast<HostEntry>(*found);
}

StatusOr<std::vector<size_t>>
SharedObject::argRanks(const std::string &entry) const {
  // Blobs of attnc before the rank tables lack the symbol: recompile them.
  auto found = address(entry + "_arg_ranks", "argument record");
  if (!found)
    return Status::error(found.status().message() +
                         " (compiled by an older attnc? recompile it)");
  const auto *record = static_cast<const int64_t *>(*found);
  // A record is at most a few dozen words; a larger count is not one.
  if (record[0] < 0 || record[0] > 4096)
    return Status::error("blob '" + blobName_ + "': the argument record of '" +
                         entry + "' is corrupt");
  std::vector<size_t> ranks;
  for (int64_t i = 1; i <= record[0]; ++i)
    ranks.push_back(static_cast<size_t>(record[i]));
  return ranks;
}

StatusOr<GridRecord> SharedObject::gridRecord(const std::string &entry) const {
  auto found = address(entry + "_grid", "grid record");
  if (!found)
    return Status::error(found.status().message() +
                         " (compiled by an older attnc? recompile it)");
  // The record says how long it is; a symbol's size is not known here.
  const auto *words = static_cast<const int64_t *>(*found);
  auto record = GridRecord::parse(
      words, static_cast<size_t>(std::max<int64_t>(words[0], 0)));
  if (!record)
    return record.status().withContext("blob '" + blobName_ + "': entry '" +
                                       entry + "'");
  return record;
}

/// Streams are a device concept the host does not have.
Status requireNullStream(void *stream) {
  if (stream)
    return Status::error("the host device has no streams; pass a null "
                         "stream");
  return Status::ok();
}

class HostKernel final : public DeviceKernel {
public:
  HostKernel(std::shared_ptr<const SharedObject> object, HostEntry entry,
             std::vector<size_t> argRanks, GridRecord grid,
             std::shared_ptr<ThreadPool> pool)
      : DeviceKernel(std::move(grid)), object_(std::move(object)),
        entry_(entry), argRanks_(std::move(argRanks)), pool_(std::move(pool)) {}

  Status checkArgs(const std::vector<size_t> &ranks) const override {
    if (ranks == argRanks_)
      return Status::ok();
    return Status::error(
        "the step passes " + std::to_string(ranks.size()) + " arguments of " +
        describeRanks(ranks) + ", the host entry takes " +
        std::to_string(argRanks_.size()) + " of " + describeRanks(argRanks_));
  }

  Status launch(const std::vector<const KernelArg *> &args,
                const GridExtents &grid, void *) const override {
    std::vector<std::vector<int64_t>> descriptors;
    std::vector<void *> argv;
    descriptors.reserve(args.size());
    for (const KernelArg *arg : args) {
      descriptors.push_back(memrefDescriptor(*arg));
      argv.push_back(descriptors.back().data());
    }
    pool_->parallelFor(
        grid[0] * grid[1] * grid[2],
        [&](int64_t begin, int64_t end) { entry_(argv.data(), begin, end); });
    return Status::ok();
  }

private:
  std::shared_ptr<const SharedObject> object_; // keeps entry_ mapped
  HostEntry entry_;
  std::vector<size_t> argRanks_;
  std::shared_ptr<ThreadPool> pool_;
};

/// A steady-clock reading: host work is done when its call returns.
struct HostEvent final : DeviceEvent {
  explicit HostEvent(std::chrono::steady_clock::time_point time) : time(time) {}
  std::chrono::steady_clock::time_point time;
};

class HostDevice final : public Device {
public:
  explicit HostDevice(std::shared_ptr<ThreadPool> pool)
      : pool_(std::move(pool)) {}

  const std::string &name() const override { return target_; }
  const std::string &target() const override { return target_; }
  StatusOr<KernelMap> load(const pkg::Package &package) override;

  Status checkStream(void *stream) const override {
    return requireNullStream(stream);
  }
  /// Host pointers cannot be checked; kernels trust them.
  Status checkAccess(const void *, size_t) const override {
    return Status::ok();
  }

  StatusOr<void *> allocate(size_t bytes) const override {
    if (bytes > SIZE_MAX - kAlignment)
      return Status::error("cannot allocate " + std::to_string(bytes) +
                           " bytes");
    // aligned_alloc wants a multiple of the alignment.
    size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
    void *data = std::aligned_alloc(kAlignment, rounded);
    if (!data)
      return Status::error("cannot allocate " + std::to_string(bytes) +
                           " bytes: out of memory");
    return data;
  }
  Status free(void *data) const override {
    std::free(data);
    return Status::ok();
  }
  /// Host work is done when its call returns: a workspace is plain memory.
  StatusOr<void *> allocateWorkspace(size_t bytes, void *) const override {
    return allocate(bytes);
  }
  Status freeWorkspace(void *data, void *) const override { return free(data); }
  Status copy(void *dst, const void *src, size_t bytes,
              CopyKind) const override {
    std::memcpy(dst, src, bytes);
    return Status::ok();
  }
  /// Nothing to pin or to queue: the host's copies are done on return.
  StatusOr<void *> allocatePinned(size_t bytes) const override {
    return allocate(bytes);
  }
  Status freePinned(void *data) const override { return free(data); }
  StatusOr<void *> createStream() const override {
    return static_cast<void *>(nullptr);
  }
  Status destroyStream(void *) const override { return Status::ok(); }
  Status copyAsync(void *dst, const void *src, size_t bytes, CopyKind,
                   void *stream) const override {
    if (Status s = requireNullStream(stream); !s)
      return s;
    std::memcpy(dst, src, bytes);
    return Status::ok();
  }
  Status fill(void *data, uint8_t value, size_t bytes) const override {
    std::memset(data, value, bytes);
    return Status::ok();
  }
  Status synchronize(void *stream) const override {
    return requireNullStream(stream);
  }
  StatusOr<void *> fork(void *stream) const override {
    if (Status s = requireNullStream(stream); !s)
      return s;
    return static_cast<void *>(nullptr);
  }
  Status join(void *, void *stream) const override {
    return requireNullStream(stream);
  }
  StatusOr<std::shared_ptr<const DeviceEvent>>
  record(void *stream) const override {
    if (Status s = requireNullStream(stream); !s)
      return s;
    return std::shared_ptr<const DeviceEvent>(
        std::make_shared<HostEvent>(std::chrono::steady_clock::now()));
  }
  /// Host work is done when its call returns: every event has happened.
  Status wait(const DeviceEvent &, void *stream) const override {
    return requireNullStream(stream);
  }
  Status synchronize(const DeviceEvent &) const override {
    return Status::ok();
  }
  StatusOr<double> elapsedMilliseconds(const DeviceEvent &start,
                                       const DeviceEvent &end) const override {
    return std::chrono::duration<double, std::milli>(
               static_cast<const HostEvent &>(end).time -
               static_cast<const HostEvent &>(start).time)
        .count();
  }

private:
  /// A cache line, as a framework's allocator would give.
  static constexpr size_t kAlignment = 64;

  std::string target_ = kHostTarget;
  std::shared_ptr<ThreadPool> pool_;
};

StatusOr<KernelMap> HostDevice::load(const pkg::Package &package) {
  return loadKernels<SharedObject>(
      package, kHostTarget,
      [](const pkg::Blob &blob)
          -> StatusOr<std::shared_ptr<const SharedObject>> {
        if (blob.kind != kHostBlobKind)
          return Status::error("host kernel blob '" + blob.name +
                               "' has kind '" + blob.kind + "', expected '" +
                               kHostBlobKind + "'");
        return SharedObject::open(blob);
      },
      [&](std::shared_ptr<const SharedObject> object, const pkg::Kernel &kernel)
          -> StatusOr<std::shared_ptr<const DeviceKernel>> {
        auto entry = object->lookup(kernel.entry);
        if (!entry)
          return entry.status();
        auto ranks = object->argRanks(kernel.entry);
        if (!ranks)
          return ranks.status();
        auto grid = object->gridRecord(kernel.entry);
        if (!grid)
          return grid.status();
        return std::shared_ptr<const DeviceKernel>(std::make_shared<HostKernel>(
            std::move(object), *entry, std::move(*ranks), std::move(*grid),
            pool_));
      });
}

/// Threads of the pool: ATTNC_NUM_THREADS when set, else one per core.
StatusOr<unsigned> hostThreadCount() {
  const char *env = std::getenv("ATTNC_NUM_THREADS");
  if (!env || !*env)
    return std::max(1u, std::thread::hardware_concurrency());
  char *end = nullptr;
  errno = 0;
  long long value = std::strtoll(env, &end, 10);
  if (errno != 0 || *end != '\0' || value < 1 || value > kMaxThreads)
    return Status::error("ATTNC_NUM_THREADS must be an integer in [1, " +
                         std::to_string(kMaxThreads) + "], got '" + env + "'");
  return static_cast<unsigned>(value);
}

} // namespace

StatusOr<std::shared_ptr<Device>> attnc::rt::detail::openHostDevice() {
  auto numThreads = hostThreadCount();
  if (!numThreads)
    return numThreads.status();
  auto pool = ThreadPool::create(*numThreads);
  if (!pool)
    return pool.status();
  return std::shared_ptr<Device>(std::make_shared<HostDevice>(
      std::shared_ptr<ThreadPool>(std::move(*pool))));
}
