//===- Runtime.h - Load attnc packages and call their functions -*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The C++ API of libattnrt:
//
//   auto rt = attnc::rt::Runtime::open("cuda:0");  // or "host"
//   auto package = rt->load("block.attnpkg");
//   auto fn = package->function("attention_fwd");
//   Status s = fn->call({q, k, v}, {out, lse}, stream);
//
// Tensors live in memory the device can access: the caller's own (e.g. a
// framework's tensors) or Runtime::allocate's. Every fallible call returns a
// Status or StatusOr; nothing prints. Handles are cheap to copy and share
// what they refer to: a Function keeps its package's loaded code and its
// device alive, so the Runtime and Package handles it came from may be
// dropped first.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_RUNTIME_RUNTIME_H
#define ATTNC_RUNTIME_RUNTIME_H

#include "attnc/package/Package.h"
#include "attnc/runtime/Export.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attnc::rt {

namespace detail {
class Device;
class DeviceEvent;
class DeviceKernel;
struct FunctionPlan;
struct LoadedPackage;
} // namespace detail

/// Which way Runtime::copy moves bytes. On the host every kind is a memcpy.
enum class CopyKind { HostToDevice, DeviceToHost, DeviceToDevice };

/// A caller-owned tensor: a pointer the device can read or write, its element
/// type and its layout. Strides are in elements; empty means contiguous
/// row-major.
struct TensorRef {
  void *data = nullptr;
  pkg::DType dtype = pkg::DType::F32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
};

/// Extents bound to the symbolic dims of one function, each remembering where
/// it came from so that a conflict names both sides.
class ATTNC_RT_EXPORT SymbolBindings {
public:
  /// Binds `symbol` to `extent`, or checks it against an earlier binding.
  /// `origin` says where the extent came from, e.g. "q dim 2".
  Status bind(const std::string &symbol, int64_t extent,
              const std::string &origin);
  /// Checks `shape` against `sig` (rank, extents >= 0, static extents) and
  /// binds its symbols. Messages call the tensor `role`, e.g. "input q".
  Status bindShape(const pkg::TensorSig &sig, const std::vector<int64_t> &shape,
                   const std::string &role);

  std::optional<int64_t> lookup(const std::string &symbol) const;
  /// `sig`'s shape with every symbol replaced by its extent; the error names
  /// the unbound symbols.
  StatusOr<std::vector<int64_t>> resolve(const pkg::TensorSig &sig) const;
  /// Symbol -> extent, sorted by symbol.
  std::map<std::string, int64_t> values() const;

private:
  struct Binding {
    int64_t extent;
    std::string origin;
  };
  std::map<std::string, Binding> bindings_;
};

/// One function of a loaded package.
class ATTNC_RT_EXPORT Function {
public:
  const std::string &name() const;
  /// Inputs, outputs, buffers, steps, kernels and ops, as the manifest
  /// states them.
  const pkg::Function &signature() const;
  /// The device it runs on, as the Runtime was opened ("host", "cuda:0").
  const std::string &device() const;

  /// Checks every tensor against the signature (count, dtype, rank, static
  /// extents, consistent symbols, layout) and the device (on CUDA: memory of
  /// this device that holds every element), then runs the function's
  /// program: its buffers get one workspace for the call, its steps launch
  /// their kernels for this device in order, each on the tensors and
  /// buffers it names with its grid resolved from the bound symbols, and the
  /// workspace is freed. A function without kernels for this device's
  /// target fails here, naming the targets it has. `stream` is a CUstream on
  /// a cuda device (null: the legacy default stream), where the call only
  /// enqueues the work: the workspace is allocated and freed in stream order
  /// from a memory pool of the device that keeps its memory between calls;
  /// a concurrent step runs beside the step before it on the device's
  /// second stream, which forks from `stream` and joins it again before
  /// the next step. On a device without memory pools
  /// (CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED = 0), a call whose buffers
  /// need memory instead synchronizes `stream` before it frees the
  /// workspace, so it returns when the work queued on `stream` is done.
  /// `stream` must be null on the host, where the call returns when the
  /// work is done. After an error, the outputs are unspecified.
  Status call(const std::vector<TensorRef> &inputs,
              const std::vector<TensorRef> &outputs,
              void *stream = nullptr) const;
  /// Runs call() with an event recorded on `stream` before the first step
  /// and after each, waits for the last, and returns each step's
  /// milliseconds, in the order of signature().steps. Events on one stream
  /// add no waits between the steps, so the times add up to the call's
  /// (on the host, each step's wall time). A concurrent step, which ran
  /// beside the step before it on a second stream, is marked after the
  /// two are joined: its time is what it took beyond that step.
  StatusOr<std::vector<double>> profile(const std::vector<TensorRef> &inputs,
                                        const std::vector<TensorRef> &outputs,
                                        void *stream = nullptr) const;

private:
  friend class Package;
  Status
  run(const std::vector<TensorRef> &inputs,
      const std::vector<TensorRef> &outputs, void *stream,
      std::vector<std::shared_ptr<const detail::DeviceEvent>> *marks) const;
  Function(std::shared_ptr<const detail::LoadedPackage> package,
           const pkg::Function *function, const detail::FunctionPlan *plan);

  std::shared_ptr<const detail::LoadedPackage> package_;
  const pkg::Function *function_;
  /// What a call runs, resolved at load; null when it cannot run here.
  const detail::FunctionPlan *plan_;
};

/// A package verified and loaded onto one device.
class ATTNC_RT_EXPORT Package {
public:
  /// Where it was loaded from: a path, or "<memory>".
  const std::string &origin() const;
  /// The manifest (and blobs) as read from the file.
  const pkg::Package &manifest() const;
  std::vector<std::string> functionNames() const;
  /// The error for an unknown name lists the available functions.
  StatusOr<Function> function(const std::string &name) const;

private:
  friend class Runtime;
  explicit Package(std::shared_ptr<const detail::LoadedPackage> impl);

  std::shared_ptr<const detail::LoadedPackage> impl_;
};

/// A point in the work of a stream, recorded by Runtime::record to time the
/// work between two such points.
class ATTNC_RT_EXPORT Event {
public:
  /// Milliseconds from `start` to this event; waits until this event has
  /// happened. Both must be recorded on the same device.
  StatusOr<double> millisecondsSince(const Event &start) const;
  /// Blocks the calling thread until this event has happened (a no-op on
  /// the host, where the work is done when it is queued).
  Status wait() const;

private:
  friend class Runtime;
  Event(std::shared_ptr<detail::Device> device,
        std::shared_ptr<const detail::DeviceEvent> event);

  std::shared_ptr<detail::Device> device_;
  std::shared_ptr<const detail::DeviceEvent> event_;
};

/// A device to load packages onto.
class ATTNC_RT_EXPORT Runtime {
public:
  /// `device` is "host" (the CPU; a thread pool of hardware_concurrency
  /// threads, or ATTNC_NUM_THREADS) or "cuda:N".
  static StatusOr<Runtime> open(const std::string &device);

  /// The device string it was opened with.
  const std::string &device() const;

  /// Reads and verifies a package, then loads the code of every kernel for
  /// this device's target of each function that can run on it.
  StatusOr<Package> load(const std::string &path) const;
  StatusOr<Package> loadFromMemory(const void *data, size_t size) const;

  //===--------------------------------------------------------------------===//
  // Memory, synchronization and timing
  //
  // On a cuda device, copies and fills run in order on the legacy default
  // stream: a host-to-device copy returns once `src` may be reused, a
  // device-to-host copy once `dst` holds the data, and device-side copies
  // and fills may still be running when they return. On the host all of
  // them are done when they return.
  //===--------------------------------------------------------------------===//

  /// `bytes` bytes of device memory (host: 64-byte aligned; CUDA: 256-byte
  /// aligned), valid until freed or until the last handle using this device
  /// is gone. Zero bytes give a null pointer.
  StatusOr<void *> allocate(size_t bytes) const;
  /// Frees memory from allocate(); null is allowed.
  Status free(void *data) const;
  /// Copies `bytes` bytes from `src` to `dst`; `kind` says which of them is
  /// device memory.
  Status copy(void *dst, const void *src, size_t bytes, CopyKind kind) const;
  /// `bytes` bytes of host memory that copyAsync can copy to and from
  /// without staging (CUDA: page-locked; host: 64-byte aligned), valid until
  /// freeHost or until the last handle using this device is gone. Zero bytes
  /// give a null pointer.
  StatusOr<void *> allocateHost(size_t bytes) const;
  /// Frees memory from allocateHost(); null is allowed.
  Status freeHost(void *data) const;
  /// Queues copy() on `stream` (null: the legacy default stream) after the
  /// work queued there so far, and returns without waiting for it: its host
  /// side, from allocateHost, must stay untouched until the copy is done,
  /// which an Event recorded after it tells (Event::wait). On the host,
  /// which only accepts null, the copy is done when it returns.
  Status copyAsync(void *dst, const void *src, size_t bytes, CopyKind kind,
                   void *stream = nullptr) const;
  /// Sets `bytes` bytes of device memory at `data` to `value`.
  Status fill(void *data, uint8_t value, size_t bytes) const;
  /// Waits for the work queued on `stream`; null waits for all work of the
  /// device. A no-op on the host, which only accepts null.
  Status synchronize(void *stream = nullptr) const;
  /// Records the current point of `stream` (null: the legacy default
  /// stream; the host only accepts null), for Event::millisecondsSince.
  StatusOr<Event> record(void *stream = nullptr) const;

private:
  friend class TokenLoader; // copies batches to the device
  explicit Runtime(std::shared_ptr<detail::Device> device);
  StatusOr<Package> loadParsed(StatusOr<pkg::Package> parsed,
                               const std::string &origin) const;

  std::shared_ptr<detail::Device> device_;
};

} // namespace attnc::rt

#endif // ATTNC_RUNTIME_RUNTIME_H
