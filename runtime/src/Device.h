//===- Device.h - The device layer under the runtime's handles --*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A Device loads a package's code for its target, launches kernels on
// tensors that Function::call has already validated, provides the workspace
// of a call's buffers, and manages the memory and timing events of its
// Runtime. Everything device-specific lives behind
// this interface: the host device (shared libraries run on a thread pool) and
// the CUDA device (driver API, loaded at run time).
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_RUNTIME_DEVICE_H
#define ATTNC_RUNTIME_DEVICE_H

#include "attnc/package/Package.h"
#include "attnc/runtime/Runtime.h"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace attnc::rt::detail {

/// A kernel argument after validation: shape and strides (in elements) are
/// both explicit, whatever the caller passed.
struct KernelArg {
  void *data;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  pkg::DType dtype;
};

/// The MLIR strided memref descriptor of `arg` as int64_t words, the
/// per-argument ABI of every target (see pkg::Kernel):
/// {allocated, aligned, offset = 0, sizes[rank], strides[rank]}.
std::vector<int64_t> memrefDescriptor(const KernelArg &arg);
/// Words of the descriptors of memrefs of these ranks: 3 + 2 * rank each.
size_t descriptorWords(const std::vector<size_t> &ranks);
/// "ranks [4, 4, 3]", for messages about argument lists.
std::string describeRanks(const std::vector<size_t> &ranks);

/// Grid extents (x, y, z) of one launch, each >= 0.
using GridExtents = std::array<int64_t, 3>;
/// "(x, y, z)", for messages about grids and blocks.
std::string describeTriple(int64_t x, int64_t y, int64_t z);

/// The grid a kernel's code was compiled for, from the grid record beside
/// its entry (pkg::Kernel): each extent is ceil(constant * (product of
/// some dims of its arguments) / divisor).
class GridRecord {
public:
  /// Reads a record of at most `available` words at `words` (its first word
  /// says how many it has); fails on one that is malformed.
  static StatusOr<GridRecord> parse(const int64_t *words, size_t available);
  /// The grid the code computes from `args`; fails when the record reads
  /// an argument or dim they lack, or a product overflows.
  StatusOr<GridExtents>
  evaluate(const std::vector<const KernelArg *> &args) const;

private:
  struct Extent {
    int64_t constant, divisor;
    std::vector<std::pair<size_t, size_t>> dims; // (argument, dim)
  };
  std::vector<Extent> extents_;
};

/// One kernel's code, loaded onto a device.
class DeviceKernel {
public:
  explicit DeviceKernel(GridRecord grid) : grid_(std::move(grid)) {}
  virtual ~DeviceKernel() = default;
  /// The grid the code was compiled for, which each launch's grid (from the
  /// manifest) must equal.
  const GridRecord &gridRecord() const { return grid_; }
  /// Runs every block of `grid` on `args` (the values its step names), in
  /// the stream `stream` where the device has streams. The arguments are
  /// pointers, since a call's values are not copied for each step.
  virtual Status launch(const std::vector<const KernelArg *> &args,
                        const GridExtents &grid, void *stream) const = 0;
  /// Checks, once at load, that the code takes what a step passes: memrefs
  /// of these ranks (the signature the code records: the host entry's rank
  /// table, the cubin's parameter list). A manifest edited consistently
  /// must not launch a kernel on arguments it does not expect.
  virtual Status checkArgs(const std::vector<size_t> &ranks) const = 0;

private:
  GridRecord grid_;
};

/// Kernel name -> the kernel of that name for the device's target.
using FunctionKernels =
    std::map<std::string, std::shared_ptr<const DeviceKernel>>;
/// Function name -> its kernels, for each function that runs on the device.
using KernelMap = std::map<std::string, FunctionKernels>;

/// A recorded point in a stream's work (Runtime::record).
class DeviceEvent {
public:
  virtual ~DeviceEvent() = default;
};

class Device {
public:
  virtual ~Device() = default;
  /// The string it was opened with ("host", "cuda:0").
  virtual const std::string &name() const = 0;
  /// The kernel target it runs ("host", or a chip such as "sm_90a").
  virtual const std::string &target() const = 0;
  /// Loads the code of every kernel for target() of every function that runs
  /// on it (pkg::Function::runsOn). Other functions are left out (calling
  /// them is an error).
  virtual StatusOr<KernelMap> load(const pkg::Package &package) = 0;

  /// Checks that work may be queued on `stream` (the host has no streams
  /// and takes only null), before a call runs anything.
  virtual Status checkStream(void *stream) const = 0;
  /// Checks that the `bytes` bytes at `data` (bytes > 0) are memory that
  /// this device's kernels may read and write.
  virtual Status checkAccess(const void *data, size_t bytes) const = 0;

  /// The memory operations of Runtime, whose documentation they follow; the
  /// Runtime has already handled null pointers and zero sizes.
  virtual StatusOr<void *> allocate(size_t bytes) const = 0;
  virtual Status free(void *data) const = 0;
  /// The workspace of one call (bytes > 0), ordered on `stream`: the work
  /// queued on `stream` after this may use it (host: 64-byte aligned;
  /// CUDA: 256-byte aligned, as every driver allocation is).
  virtual StatusOr<void *> allocateWorkspace(size_t bytes,
                                             void *stream) const = 0;
  /// Frees a workspace once the work queued on `stream` so far is done with
  /// it; may return before that work is.
  virtual Status freeWorkspace(void *data, void *stream) const = 0;
  virtual Status copy(void *dst, const void *src, size_t bytes,
                      CopyKind kind) const = 0;
  /// Host memory that copyAsync reads and writes without staging it (CUDA:
  /// page-locked; host: 64-byte aligned).
  virtual StatusOr<void *> allocatePinned(size_t bytes) const = 0;
  virtual Status freePinned(void *data) const = 0;
  /// A stream of its own, for copies beside the caller's work (host: null).
  virtual StatusOr<void *> createStream() const = 0;
  virtual Status destroyStream(void *stream) const = 0;
  /// Queues a copy of `bytes` bytes on `stream`, host memory pinned; the
  /// host side must stay untouched until the copy is done (host: a memcpy,
  /// done on return).
  virtual Status copyAsync(void *dst, const void *src, size_t bytes,
                           CopyKind kind, void *stream) const = 0;
  virtual Status fill(void *data, uint8_t value, size_t bytes) const = 0;
  virtual Status synchronize(void *stream) const = 0;
  /// A second stream for work that may run beside what is queued on
  /// `stream` next: work queued on it starts after the work queued on
  /// `stream` so far (host: null, the host runs everything in order).
  virtual StatusOr<void *> fork(void *stream) const = 0;
  /// Makes the work queued on `stream` from now on wait for the work queued
  /// on `side` (a stream fork returned) so far.
  virtual Status join(void *side, void *stream) const = 0;
  virtual StatusOr<std::shared_ptr<const DeviceEvent>>
  record(void *stream) const = 0;
  /// Makes the work queued on `stream` from now on wait for `event`
  /// (host: nothing to wait for).
  virtual Status wait(const DeviceEvent &event, void *stream) const = 0;
  /// Blocks the calling thread until `event` has happened.
  virtual Status synchronize(const DeviceEvent &event) const = 0;
  /// Milliseconds from `start` to `end`, both recorded by a device of the
  /// same name; waits for `end`.
  virtual StatusOr<double>
  elapsedMilliseconds(const DeviceEvent &start,
                      const DeviceEvent &end) const = 0;
};

/// The walk over a package that Device::load implementations share: for each
/// function that runs on `target`, each of its kernels for `target` is
/// loaded by `loadKernel`, after its blob by `loadBlob` (once per blob,
/// shared by its kernels); a library kernel (pkg::Kernel::library) has no
/// blob and gets null code. Errors name the function and the kernel.
template <typename Code>
StatusOr<KernelMap> loadKernels(
    const pkg::Package &package, const std::string &target,
    const std::function<
        StatusOr<std::shared_ptr<const Code>>(const pkg::Blob &)> &loadBlob,
    const std::function<StatusOr<std::shared_ptr<const DeviceKernel>>(
        std::shared_ptr<const Code>, const pkg::Kernel &)> &loadKernel) {
  std::map<std::string, std::shared_ptr<const Code>> loaded;
  KernelMap kernels;
  for (const pkg::Function &function : package.functions) {
    if (!function.runsOn(target))
      continue;
    FunctionKernels &functionKernels = kernels[function.name];
    for (const pkg::Kernel &kernel : function.kernels) {
      if (kernel.target != target)
        continue;
      std::string context =
          "function '" + function.name + "': kernel '" + kernel.name + "'";
      if (kernel.library) { // a routine of the device, no code to load
        auto made = loadKernel(nullptr, kernel);
        if (!made)
          return made.status().withContext(context);
        functionKernels[kernel.name] = std::move(*made);
        continue;
      }
      const pkg::Blob *blob = package.findBlob(kernel.blob);
      if (!blob)
        return Status::error(context + ": no blob '" + kernel.blob + "'");
      std::shared_ptr<const Code> &code = loaded[blob->name];
      if (!code) {
        auto opened = loadBlob(*blob);
        if (!opened)
          return opened.status().withContext(context);
        code = std::move(*opened);
      }
      auto made = loadKernel(code, kernel);
      if (!made)
        return made.status().withContext(context);
      functionKernels[kernel.name] = std::move(*made);
    }
  }
  return kernels;
}

/// Opens "host" or "cuda:N"; anything else is an error naming those forms.
StatusOr<std::shared_ptr<Device>> openDevice(const std::string &spec);

} // namespace attnc::rt::detail

#endif // ATTNC_RUNTIME_DEVICE_H
